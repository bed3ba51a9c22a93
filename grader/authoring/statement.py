"""Validate check: the statement's worked examples equal the public cases, to the
digits the statement prints."""
from __future__ import annotations

import re

from ..common.trees import get_path
from .context import Validation, Finding


def check_statement(ctx: Validation) -> list[Finding]:
    p = ctx.problem
    if not p.statement_path.is_file():
        return []
    try:
        examples = parse_examples(p.statement_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return [Finding("statement examples", "fail", f"statement.md cannot be read: {exc}")]
    if not examples:
        return [Finding("statement examples", "warn", "statement.md shows no worked example in the checkable form")]
    public = {c.id: c for c in p.public_cases()}
    out = []
    for number, values in examples.items():
        case = public.get(f"example_{number}")
        if case is None:
            out.append(Finding("statement examples", "fail", f"Example {number} has no public case 'example_{number}'"))
            continue
        for name, printed in values.items():
            path = tuple(name.split("."))
            tree = case.input if path[0] in p.meta.entry.args else case.expected
            try:
                actual = get_path(tree, path)
            except (KeyError, TypeError):
                out.append(Finding("statement examples", "fail", f"Example {number}: '{name}' is not in the case"))
                continue
            mismatch = _digits_mismatch(printed, actual)
            if mismatch:
                out.append(Finding("statement examples", "fail", f"Example {number}, {name}: {mismatch}"))
    if not out:
        out.append(Finding("statement examples", "pass", f"{len(examples)} worked example(s) match the public cases"))
    return out


_EXAMPLE = re.compile(r"^\*\*Example (\d+)\*\*\s*$")
_ASSIGN = re.compile(r"^ {4}([A-Za-z_][\w.]*) = (.+)$")


def parse_examples(text: str) -> dict[int, dict[str, str]]:
    """Worked examples: a ``**Example N**`` line, then indented ``name = value`` lines."""
    examples: dict[int, dict[str, str]] = {}
    current = None
    for line in text.splitlines():
        m = _EXAMPLE.match(line)
        if m:
            current = examples.setdefault(int(m.group(1)), {})
            continue
        if line.startswith("#"):
            current = None
        m = _ASSIGN.match(line)
        if current is not None and m:
            current[m.group(1)] = m.group(2)
    return examples


class _Printed(float):
    """A number from the statement that remembers how it was written."""

    text: str


def _read_number(text: str) -> _Printed:
    number = _Printed(text)
    number.text = text
    return number


_NUMBER = re.compile(r"-?\d+(?:\.(\d+))?(?:[eE]([-+]?\d+))?")


def _half_unit(text: str) -> float:
    """Half a unit in the last printed digit: ``1.8999e-07`` means within 5e-12 of it."""
    m = _NUMBER.fullmatch(text)
    if m is None:  # json parsed it as a number, and the pattern takes every JSON number
        raise ValueError(f"not a printed number: {text!r}")
    decimals, exponent = len(m.group(1) or ""), int(m.group(2) or 0)
    return 0.5 * 10.0 ** (exponent - decimals)


def _digits_mismatch(printed: str, actual) -> str | None:
    """The first printed number that differs from the stored value by more than half a
    unit in its last printed digit, or a difference in structure; None when all agree."""
    import json
    import math

    try:
        shown = json.loads(printed, parse_float=_read_number, parse_int=_read_number)
    except ValueError:
        return f"cannot read the printed value {printed!r}"

    def kind(v) -> str:
        return "an object" if isinstance(v, dict) else "a list" if isinstance(v, list) else \
            "a number" if isinstance(v, (int, float)) and not isinstance(v, bool) else type(v).__name__

    def walk(a, b, where: str) -> str | None:
        at = where or "top"
        if kind(a) != kind(b):
            return f"the statement prints {kind(a)} at {at}, the case holds {kind(b)}"
        if isinstance(a, dict):
            if set(a) != set(b):
                return f"keys differ at {at}"
            return next((r for k in a if (r := walk(a[k], b[k], f"{where}.{k}"))), None)
        if isinstance(a, list):
            if len(a) != len(b):
                return f"length differs at {at}"
            return next((r for i, (x, y) in enumerate(zip(a, b)) if (r := walk(x, y, f"{where}[{i}]"))), None)
        if not isinstance(a, _Printed):  # NaN, Infinity, true, false, null, a string: equal or not
            same = a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))
            return None if same else f"printed {a!r} at {at}, but the case holds {b!r}"
        allowed = _half_unit(a.text)
        # The slack covers binary rounding of the stored value (4.55 is stored as 4.5499...).
        if abs(float(a) - float(b)) <= allowed * (1 + 1e-9):
            return None
        return (f"printed {a.text} at {at}, but the case holds {b!r} (differs by {abs(float(a) - float(b)):.3g}, "
                f"more than half a unit in the last printed digit, {allowed:.3g})")

    return walk(shown, actual, "")
