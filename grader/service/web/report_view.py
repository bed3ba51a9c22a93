"""A stored report (JSON) as the result panel and the report page show it: one row per
case, and for a case the viewer may see in full its input, expected and got, the
worst element (the numeric diff the text report prints), the structure diff and what
it printed; the misconception hint, the counterexample, and failed requirements in
the judge's own words. Strings stay strings: the templates escape them."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

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

    @property
    def detailed(self) -> bool:
        return self.input is not None


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

    @property
    def open_id(self) -> str | None:
        """The first failing case shown in full: its details start open."""
        return next((c.id for c in self.cases if c.detailed and not c.passed), None)

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
    if c.get("input") is not None:  # present only where the viewer may see the case in full
        view.input = shown(c["input"])
        view.expected = shown(c["expected"]) if c.get("expected") is not None else None
        view.got = shown(c["got"]) if c.get("got") is not None else None
        view.worst = worst(c.get("worst"))
        positions = (c.get("worst") or {}).get("positions")
        if positions:
            view.nonfinite = f"{(c.get('worst') or {}).get('leaf', '')} at {shown(positions)}"
        view.diff = [(str(p), str(e), str(g), e == g) for p, e, g in (c.get("diff") or [])]
        view.stdout = c.get("stdout") or None
    return view


def report_view(report: dict) -> ReportView:
    checks = [(str(k.get("name", "")), bool(k.get("passed")), str(k.get("message", "")))
              for k in (report.get("static_checks") or []) + (report.get("runtime_checks") or [])]
    ce = report.get("counterexample")
    counterexample = None
    if ce:
        counterexample = {"message": str(ce.get("message", "")), "input": shown(ce.get("input")),
                          "expected": shown(ce.get("expected")), "got": shown(ce.get("got"))}
    sandbox = report.get("sandbox") or {}
    return ReportView(verdict=str(report.get("verdict", "")), title=str(report.get("verdict_title", "")),
                      message=str(report.get("message") or ""), passed=int(report.get("passed") or 0),
                      total=int(report.get("total") or 0), hint=report.get("hint"),
                      failed_checks=[(n, m) for n, ok, m in checks if not ok], checks=checks,
                      cases=[case_view(c) for c in report.get("cases") or []], counterexample=counterexample,
                      stdout=str(report.get("stdout") or ""), layers=list(sandbox.get("layers") or []),
                      unavailable=dict(sandbox.get("unavailable") or {}))
