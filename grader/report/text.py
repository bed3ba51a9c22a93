"""The report as text for people, through rich. Everything a submission controls
goes through ``_e``: control characters made visible, so that no escape sequence,
carriage return or line break reaches the terminal, and markup escaped, so that rich
never reads it as markup."""
from __future__ import annotations

import json
from typing import Any

from ..common.verdicts import Verdict
from .model import HINT_MAY_FOLLOW, Report, in_order_of

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _shown(ch: str) -> str:
    code = ord(ch)
    return _NAMED.get(ch) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000
                               else f"\\U{code:08x}")


def visible(text: Any, keep: str = "") -> str:
    """``text`` with every character that is not printable (Python's ``str.isprintable``:
    C0 and C1 controls such as ESC, CR and BS, DEL, line and paragraph separators, format
    characters such as bidirectional overrides, lone surrogates, unassigned code points)
    shown as its escape (``\\x1b``, ``\\n``, ``\\u202e``), except those in ``keep``. A terminal
    or viewer acts on these instead of showing them: they clear screens, move the cursor,
    overwrite lines and reorder text. Every report format passes submission strings
    through this."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch in keep else _shown(ch) for ch in text)


def _fmt(value: Any, limit: int = 400) -> str:
    text = json.dumps(value, separators=(", ", ": "), default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def make_console():
    """A rich console; off a terminal, wide enough that tables are not folded at 80 columns."""
    import sys

    from rich.console import Console

    # emoji=False: rich would otherwise turn ":white_check_mark:" in a submission's text into an icon.
    return Console(highlight=False, emoji=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)


def _e(value: Any) -> str:
    """The one way report text reaches the console: one line, every control character
    visible, markup escaped."""
    from rich.markup import escape

    return escape(visible(value))


def render_text(report: Report, console=None) -> None:
    from rich.table import Table
    from rich.text import Text

    con = console or make_console()
    ok = report.verdict == Verdict.AC.value
    style = "bold green" if ok else "bold red"
    con.print(Text.assemble((f"{report.verdict} ", style), (report.verdict_title, style),
                            f"  {visible(report.problem)}  {visible(report.submission)}"))
    if report.message:
        con.print(f"  {_e(report.message)}")
    if report.hint:
        con.print(f"  [yellow]hint:[/yellow] {_e(report.hint)}")
    elif report.hint_may_follow:
        con.print(f"  [dim]{HINT_MAY_FOLLOW}[/dim]")
    if report.total:
        con.print(f"  {report.passed}/{report.total} cases passed")
    for check in report.static_checks + report.runtime_checks:
        mark = "[green]✓[/green]" if check.passed else "[red]✗[/red]"
        if not check.passed or con.is_terminal:
            con.print(f"  {mark} {_e(check.name)}: {_e(check.message)}")
    if report.cases:
        table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
        for col in ("case", "", "verdict", "reason", "time ms", "message"):
            table.add_column(col)
        for case in report.cases:
            t = f"{case.time_ms:.1f}" if case.time_ms is not None else "-"
            table.add_row(_e(case.id), _e(case.visibility), _e(case.verdict), _e(case.reason or ""), t,
                          _e(case.message))
        con.print(table)
    for case in report.cases:
        if case.visibility != "public" or case.verdict == Verdict.AC.value or case.input is None:
            continue
        con.print(f"\n[bold]{_e(case.id)}[/bold] ({_e(case.verdict)}, {_e(case.reason)}): {_e(case.message)}")
        if case.hint:
            con.print(f"  [yellow]hint:[/yellow] {_e(case.hint)}")
        con.print(f"  input:    {_e(_fmt(case.input))}")
        if case.expected is not None:
            con.print(f"  expected: {_e(_fmt(case.expected))}")
        if case.got is not None:
            con.print(f"  got:      {_e(_fmt(in_order_of(case.got, case.expected)))}")
        if case.worst and case.worst.get("abs_err") is not None:
            w = case.worst
            rel = f"{w['rel_err']:.3g}" if w.get("rel_err") is not None else "-"
            con.print(f"  worst:    {_e(w['leaf'])}{_e(w['index'])}: expected {w['expected']:.9g}, got {w['got']:.9g}, "
                      f"abs err {w['abs_err']:.3g}, rel err {_e(rel)} (atol {w['atol']:g}, rtol {w['rtol']:g})")
        if case.diff:
            width = max(len(row[0]) for row in case.diff)
            con.print("  output structure (expected | got):")
            for path, want, got in case.diff:
                mark = " " if want == got else "[red]≠[/red]"
                con.print(f"   {mark} {_e(path.ljust(width))}  {_e(want)}  |  {_e(got)}")
        if case.worst and case.worst.get("positions"):
            con.print(f"  non-finite at {_e(case.worst['leaf'])}{_e(case.worst['positions'])}")
        if case.stdout:
            con.print(f"  printed:  {_e(_fmt(case.stdout, 600))}")
    if report.counterexample:
        ce = report.counterexample
        con.print("\n[bold]A public input on which the submission also fails[/bold] (found by the problem's "
                  "generator, shrunk):")
        con.print(f"  {_e(ce['message'])}")
        con.print(f"  input:    {_e(_fmt(ce['input'], 800))}")
        con.print(f"  expected: {_e(_fmt(ce['expected'], 800))}")
        con.print(f"  got:      {_e(_fmt(in_order_of(ce['got'], ce['expected']), 800))}")
    if report.summarized:
        con.print(f"\n  too large to keep in full, stored as summaries: {_e(', '.join(report.summarized))}")
    costed = [(c, c.cost) for c in report.cases if c.cost]
    if costed:
        con.print("\n[bold]Cost per case[/bold] (ms; wall-clock on a shared machine, so noisy):")
        for c, k in costed:
            ref = (f"   reference: compile {k['ref_compile_ms']:.1f}, run {k['ref_run_ms']:.2f}"
                   if "ref_run_ms" in k else "")
            con.print(f"  {_e(c.id.ljust(16))} compile {k['compile_ms']:.1f}, run {k['run_ms']:.2f}{_e(ref)}")
    layers = report.sandbox.get("layers") or []
    if layers or report.sandbox.get("unavailable"):
        missing = ", ".join(f"{k} ({v})" for k, v in report.sandbox.get("unavailable", {}).items())
        con.print(f"\n  sandbox layers: {_e(', '.join(layers))}" + (f"; unavailable: {_e(missing)}" if missing else ""))
