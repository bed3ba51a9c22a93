"""Stage 7: the verdict report, as typed data and in its output formats.

Hidden cases are reduced here, in one place, to id, verdict, reason code and
a stock sentence: never their inputs, expected values, or what the submission
printed or raised on them.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from .static_checks import CheckResult
from .verdict import Verdict

# The only words a hidden case may carry, keyed by reason code.
HIDDEN_MESSAGES = {
    "": "passed", "value": "wrong value", "nan": "output holds NaN or infinity", "dtype": "wrong dtype",
    "shape": "wrong shape", "structure": "wrong output structure", "type": "wrong output type",
    "exception": "runtime error", "crash": "the process crashed", "memory": "memory limit exceeded",
    "time": "time limit exceeded", "output_size": "output limit exceeded", "not_run": "not run",
}


@dataclass
class CheckLine:
    name: str
    passed: bool
    message: str


@dataclass
class CaseReport:
    id: str
    visibility: str
    verdict: str
    reason: str
    message: str
    time_ms: float | None
    input: Any = None
    expected: Any = None
    got: Any = None
    worst: dict | None = None
    diff: list[list[str]] | None = None  # rows of (path, expected, got) for a structure/shape/dtype mismatch
    stdout: str | None = None
    hint: str | None = None  # the misconception this output matches, if any
    cost: dict | None = None  # compile and run times beside the reference's


@dataclass
class Report:
    problem: str
    submission: str
    verdict: str
    verdict_title: str
    reason: str
    message: str
    static_checks: list[CheckLine] = field(default_factory=list)
    runtime_checks: list[CheckLine] = field(default_factory=list)
    cases: list[CaseReport] = field(default_factory=list)
    passed: int = 0
    total: int = 0
    sandbox: dict = field(default_factory=dict)
    stdout: str = ""
    hint: str | None = None
    counterexample: dict | None = None

    def to_json(self) -> dict:
        return json_safe(asdict(self))


def lines(checks: list[CheckResult]) -> list[CheckLine]:
    return [CheckLine(c.name, c.passed, c.message) for c in checks]


def hidden_view(case: CaseReport) -> CaseReport:
    reason = case.reason
    message = HIDDEN_MESSAGES.get(reason, "an input was modified" if reason.endswith("_mutated") else "failed")
    return CaseReport(case.id, "hidden", case.verdict, reason, message, case.time_ms, hint=case.hint, cost=case.cost)


def json_safe(value: Any) -> Any:
    """Non-finite floats as "NaN"/"Infinity" strings: reports stay strict JSON."""
    import math

    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value


def render_json(report: Report) -> str:
    return json.dumps(json_safe(report.to_json()), indent=2, allow_nan=False, default=str)


def _fmt(value: Any, limit: int = 400) -> str:
    text = json.dumps(value, separators=(", ", ": "), default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def make_console():
    """A rich console; off a terminal, wide enough that tables are not folded at 80 columns."""
    import sys

    from rich.console import Console

    return Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)


def _e(value: Any) -> str:
    """Submission-controlled text, escaped so rich never reads it as markup."""
    from rich.markup import escape

    return escape(str(value))


def render_text(report: Report, console=None) -> None:
    from rich.table import Table
    from rich.text import Text

    con = console or make_console()
    ok = report.verdict == Verdict.AC.value
    style = "bold green" if ok else "bold red"
    con.print(Text.assemble((f"{report.verdict} ", style), (report.verdict_title, style),
                            f"  {report.problem}  {report.submission}"))
    if report.message:
        con.print(f"  {_e(report.message)}")
    if report.hint:
        con.print(f"  [yellow]hint:[/yellow] {_e(report.hint)}")
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
            table.add_row(_e(case.id), case.visibility, case.verdict, _e(case.reason or ""), t, _e(case.message))
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
            con.print(f"  got:      {_e(_fmt(case.got))}")
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
        con.print(f"  got:      {_e(_fmt(ce['got'], 800))}")
    costed = [c for c in report.cases if c.cost]
    if costed:
        con.print("\n[bold]Cost per case[/bold] (ms; wall-clock on a shared machine, so noisy):")
        for c in costed:
            k = c.cost
            ref = (f"   reference: compile {k['ref_compile_ms']:.1f}, run {k['ref_run_ms']:.2f}"
                   if "ref_run_ms" in k else "")
            con.print(f"  {_e(c.id.ljust(16))} compile {k['compile_ms']:.1f}, run {k['run_ms']:.2f}{_e(ref)}")
    layers = report.sandbox.get("layers") or []
    if layers or report.sandbox.get("unavailable"):
        missing = ", ".join(f"{k} ({v})" for k, v in report.sandbox.get("unavailable", {}).items())
        con.print(f"\n  sandbox layers: {_e(', '.join(layers))}" + (f"; unavailable: {_e(missing)}" if missing else ""))
