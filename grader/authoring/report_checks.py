"""What ``validate`` checks of the corpus beyond each file's verdict (``check_submissions``
calls these): every report validates against the report's JSON schema and shows no hidden
input value, and grading the corpus wrote nothing to the problems, to the corpus, or to a
``/tmp`` path a corpus file names (the paths its attack files try to write)."""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..problem import Problem

# A value with fewer significant digits (0.5, 2.0, an integer) is too common to be a sign
# that the report carries a hidden case's input.
HIDDEN_DIGITS = 7
# The fewest significant digits a rendering of one must keep to count: 1.128 (1.12800002
# to 6 digits) is in a report of pairwise_distances_vmap by chance.
SHOWN_DIGITS = 5
_TMP_PATH = re.compile(r"/tmp/[A-Za-z0-9_.-]+")
_NUMBER = re.compile(r"(?<![\d.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\d.])")


def _digits(rendering: str) -> int:
    """How many significant digits a rendering of a float (``-1.25e-05``) has."""
    return len(rendering.lstrip("-").partition("e")[0].replace(".", "").strip("0"))


def hidden_numbers(problem: Problem) -> set[str]:
    """The renderings a report could use for a hidden case's input values: each float of
    HIDDEN_DIGITS or more significant digits in float32, as ``repr``, as float32 prints
    it, and to 6 and 9 digits (those renderings that keep SHOWN_DIGITS digits or more:
    0.31274 does)."""
    out: set[str] = set()

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        # The inputs are float32 data: 0.8999999761581421 is 0.9 there, which any report
        # may hold for other reasons (a public case's input, say).
        elif isinstance(v, float) and _digits(f32 := str(np.float32(v))) >= HIDDEN_DIGITS:
            out.update(r for r in (repr(v), f32, f"{v:.6g}", f"{v:.9g}") if _digits(r) >= SHOWN_DIGITS)

    for case in problem.cases:
        if case.hidden:
            walk(case.input)
    return out


def schema_validator() -> Any:
    """A validator of the report schema."""
    import jsonschema

    from ..report.formats import schema

    return jsonschema.Draft202012Validator(schema())


def _without_measurements(data: dict) -> dict:
    """The report without the times the judge measured: each case's ``time_ms`` and the
    ``*_ms`` of its ``cost``. A case that ran 11.343 ms is not a hidden input of 11.34299087.
    Only those places: a key ending in ``_ms`` elsewhere (in a submission's own output, say)
    is still searched."""
    def case(c: Any) -> Any:
        if not isinstance(c, dict):
            return c
        out = {k: v for k, v in c.items() if k != "time_ms"}
        if isinstance(out.get("cost"), dict):
            out["cost"] = {k: v for k, v in out["cost"].items() if not k.endswith("_ms")}
        return out

    cases = data.get("cases")
    return {**data, "cases": [case(c) for c in cases]} if isinstance(cases, list) else data


def report_faults(data: dict, hidden: set[str], validator: Any) -> list[str]:
    """What is wrong with a report (``Report.to_json()``) a learner would see: where it
    breaks the schema (which also holds a hidden case to its id, verdict and reason), and
    which hidden input values it shows, as whole numbers."""
    out = []
    for err in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))[:3]:
        where = "/".join(map(str, err.absolute_path)) or "the top level"
        out.append(f"the report breaks the report schema at {where}: {err.message[:200]}")
    # Whole numbers only: 2.4485 inside 12.44853 is a coincidence, not a hidden value.
    shown = set(_NUMBER.findall(json.dumps(_without_measurements(data), default=str)))
    leaked = sorted(hidden & (shown | {n.lstrip("-") for n in shown}))
    if leaked:
        out.append(f"the report shows hidden input values: {', '.join(leaked[:5])}")
    return out


def _digest(root: Path) -> dict[str, str]:
    if not root.is_dir():
        return {}
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


@dataclass
class DiskWatch:
    """The files under ``roots`` and which ``targets`` exist, when the watch starts;
    ``changes`` says what differs since."""

    roots: list[Path]
    targets: set[str]
    before: dict[str, str] = field(default_factory=dict)
    existing: set[str] = field(default_factory=set)

    @classmethod
    def start(cls, problem: Problem, corpus: list[Path], submissions: Path) -> DiskWatch:
        """Watch the problems' folder, ``submissions`` and every ``/tmp`` path a file of
        ``corpus`` names. Other processes may use /tmp, so a target that already exists
        is not watched."""
        targets = {t for path in corpus for t in _TMP_PATH.findall(path.read_text(errors="replace"))}
        watch = cls([problem.root.parent, submissions], targets)
        watch.before = {k: v for root in watch.roots for k, v in _digest(root).items()}
        watch.existing = {t for t in targets if os.path.lexists(t)}
        return watch

    def changes(self) -> list[str]:
        after = {k: v for root in self.roots for k, v in _digest(root).items()}
        out = [f"{path} was {'deleted' if path not in after else 'created' if path not in self.before else 'changed'}"
               for path in sorted(set(self.before) | set(after)) if self.before.get(path) != after.get(path)]
        out += [f"{t} was created" for t in sorted(self.targets - self.existing) if os.path.lexists(t)]
        return out
