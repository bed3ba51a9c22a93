"""A stored report (JSON) as the result panel and the report page show it: one row per
case, and for a case the viewer may see in full its input, expected and got (got's keys
in expected's order, so that the two read side by side), the worst element (the numeric
diff the text report prints), the structure diff and what it printed; the misconception
hint, the counterexample, and failed requirements in the judge's own words. Strings stay
strings: the templates escape them.

What matters comes first: the verdict with the counts by visibility and by outcome,
the hint once, the first failing public case open, and a compile error with its line;
the full table of cases waits behind a disclosure. ``summary`` is the one sentence a
screen reader announces."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
import re
from collections import Counter
from typing import Any

from ...report.model import HIDDEN_MESSAGES, in_order_of

SHOWN_CHARS = 4000  # a value longer than this is cut (the judge already describes large arrays)


def shown(value: Any) -> str:
    text = json.dumps(value, separators=(", ", ": "), default=str)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS - 1] + "…"


def _num(x: Any, spec: str) -> str:
    return format(x, spec) if isinstance(x, (int, float)) and not isinstance(x, bool) else str(x)


@dataclass
class Worst:
    element: str
    expected: str
    got: str
    abs_err: str
    rel_err: str
    tolerance: str


@dataclass
class CaseView:
    id: str
    visibility: str
    verdict: str
    reason: str
    message: str
    time_ms: str
    passed: bool
    input: str | None = None
    expected: str | None = None
    got: str | None = None
    worst: Worst | None = None
    nonfinite: str | None = None
    diff: list[tuple[str, str, str, bool]] = field(default_factory=list)
    stdout: str | None = None
    hint: str | None = None
    compile_ms: str = ""  # tracing and compiling its program ("" when it reused one)
    run_ms: str = ""

    @property
    def detailed(self) -> bool:
        return self.input is not None

    @property
    def outcome(self) -> str:
        """The failure in the words a hidden case gets, so public and hidden ones count together."""
        return HIDDEN_MESSAGES.get(self.reason, self.message or self.verdict)


@dataclass
class ReportView:
    verdict: str
    title: str
    message: str
    passed: int
    total: int
    hint: str | None
    failed_checks: list[tuple[str, str]]
    checks: list[tuple[str, bool, str]]
    cases: list[CaseView]
    counterexample: dict | None
    stdout: str
    layers: list[str]
    unavailable: dict
    kind: str = "run"
    compile_error: tuple[int, str] | None = None  # (line, that line of the source) of a compile error
    hint_may_follow: bool = False

    @property
    def open_id(self) -> str | None:
        """The first failing case shown in full: its details start open."""
        first = self.first_failing
        return first.id if first else None

    @property
    def first_failing(self) -> CaseView | None:
        return next((c for c in self.cases if c.detailed and not c.passed and c.verdict != "--"), None)

    def tally(self, visibility: str) -> tuple[int, int] | None:
        """(passed, total) of the cases of that visibility, None when there are none."""
        mine = [c for c in self.cases if c.visibility == visibility]
        return (sum(1 for c in mine if c.passed), len(mine)) if mine else None

    @property
    def outcomes(self) -> list[tuple[str, int]]:
        """The failures counted by outcome, most frequent first ("wrong value", 31)."""
        counted = Counter(c.outcome for c in self.cases if not c.passed and c.verdict != "--")
        return counted.most_common()

    @property
    def not_run(self) -> int:
        return sum(1 for c in self.cases if c.verdict == "--")

    @property
    def counts(self) -> str:
        """"public 1/3, hidden 4/36: 31 wrong value, 1 output holds NaN or infinity"."""
        parts = [f"{vis} {t[0]}/{t[1]}" for vis in ("public", "hidden") if (t := self.tally(vis))]
        failures = [f"{n} {what}" for what, n in self.outcomes]
        if self.not_run:
            failures.append(f"{self.not_run} not run")
        return ", ".join(parts) + (": " + ", ".join(failures) if failures and parts else "")

    @property
    def message_is_a_case(self) -> bool:
        """The verdict's message only repeats a case's (the cases say it, once)."""
        return any(self.message == f"case {c.id}: {c.message}" for c in self.cases if not c.passed)

    @property
    def summary(self) -> str:
        """What a screen reader announces: the verdict, the counts, the hint."""
        words = [self.title or self.verdict]
        if self.cases and self.kind != "custom":
            words.append(self.counts)
        if self.message and not self.message_is_a_case:
            words.append(self.message)
        if self.first_failing and self.kind != "custom":
            words.append(f"the first failing public case, {self.first_failing.id}, is open below")
        if self.hint:
            words.append(f"hint: {self.hint}")
        return ". ".join(w.rstrip(".") for w in words if w) + "."

    @property
    def hidden_failed(self) -> int:
        return sum(1 for c in self.cases if c.visibility == "hidden" and not c.passed)


def worst(w: dict | None) -> Worst | None:
    if not w or w.get("abs_err") is None:
        return None
    index = "".join(f"[{i}]" for i in w.get("index") or [])
    rel = _num(w.get("rel_err"), ".3g") if w.get("rel_err") is not None else "-"
    return Worst(element=f"{w.get('leaf', '')}{index}", expected=_num(w.get("expected"), ".9g"),
                 got=_num(w.get("got"), ".9g"), abs_err=_num(w["abs_err"], ".3g"), rel_err=rel,
                 tolerance=f"atol {_num(w.get('atol'), 'g')}, rtol {_num(w.get('rtol'), 'g')}")


def case_view(c: dict) -> CaseView:
    view = CaseView(id=str(c.get("id", "")), visibility=str(c.get("visibility", "")), verdict=str(c.get("verdict", "")),
                    reason=str(c.get("reason") or ""), message=str(c.get("message") or ""),
                    time_ms=f"{c['time_ms']:.1f}" if isinstance(c.get("time_ms"), (int, float)) else "–",
                    passed=c.get("verdict") == "AC", hint=c.get("hint"))
    cost = c.get("cost") or {}
    if isinstance(cost.get("compile_ms"), (int, float)) and isinstance(cost.get("run_ms"), (int, float)):
        view.compile_ms = f"{cost['compile_ms']:.0f}" if cost["compile_ms"] else "0"
        view.run_ms = f"{cost['run_ms']:.1f}"
    if c.get("input") is not None:  # present only where the viewer may see the case in full
        view.input = shown(c["input"])
        view.expected = shown(c["expected"]) if c.get("expected") is not None else None
        view.got = shown(in_order_of(c["got"], c.get("expected"))) if c.get("got") is not None else None
        view.worst = worst(c.get("worst"))
        positions = (c.get("worst") or {}).get("positions")
        if positions:
            view.nonfinite = f"{(c.get('worst') or {}).get('leaf', '')} at {shown(positions)}"
        view.diff = [(str(p), str(e), str(g), e == g) for p, e, g in (c.get("diff") or [])]
        view.stdout = c.get("stdout") or None
    return view


LINE = re.compile(r"^line (\d+):")


def compile_error(report: dict, source: str | None) -> tuple[int, str] | None:
    """The line a compile error names, with that line of the source."""
    if report.get("verdict") != "CE" or source is None:
        return None
    found = LINE.match(str(report.get("message") or ""))
    lines = source.splitlines()
    if not found or not 1 <= int(found.group(1)) <= len(lines):
        return None
    number = int(found.group(1))
    return number, lines[number - 1][:SHOWN_CHARS]


def report_view(report: dict, kind: str = "run", source: str | None = None) -> ReportView:
    checks = [(str(k.get("name", "")), bool(k.get("passed")), str(k.get("message", "")))
              for k in (report.get("static_checks") or []) + (report.get("runtime_checks") or [])]
    ce = report.get("counterexample")
    counterexample = None
    if ce:
        counterexample = {"message": str(ce.get("message", "")), "input": shown(ce.get("input")),
                          "expected": shown(ce.get("expected")),
                          "got": shown(in_order_of(ce.get("got"), ce.get("expected")))}
    sandbox = report.get("sandbox") or {}
    return ReportView(verdict=str(report.get("verdict", "")), title=str(report.get("verdict_title", "")),
                      message=str(report.get("message") or ""), passed=int(report.get("passed") or 0),
                      total=int(report.get("total") or 0), hint=report.get("hint"),
                      failed_checks=[(n, m) for n, ok, m in checks if not ok], checks=checks,
                      cases=[case_view(c) for c in report.get("cases") or []], counterexample=counterexample,
                      stdout=str(report.get("stdout") or ""), layers=list(sandbox.get("layers") or []),
                      unavailable=dict(sandbox.get("unavailable") or {}), kind=kind,
                      compile_error=compile_error(report, source),
                      hint_may_follow=bool(report.get("hint_may_follow")))
