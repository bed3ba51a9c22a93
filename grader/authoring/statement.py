"""Validate check: the statement's worked examples equal the public cases, to the
digits the statement prints."""
from __future__ import annotations

import re

from ..common.trees import get_path
from .context import Context, Finding


def check_statement(ctx: Context) -> list[Finding]:
    p = ctx.problem
    if not p.statement_path.is_file():
        return []
    examples = parse_examples(p.statement_path.read_text(encoding="utf-8"))
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


def _digits_mismatch(printed: str, actual) -> str | None:
    """Compare every number printed with the stored value rounded to the printed digits."""
    import json

    try:
        shown = json.loads(printed)
    except ValueError:
        return f"cannot read the printed value {printed!r}"

    def walk(a, b, where: str) -> str | None:
        if isinstance(a, dict):
            if not isinstance(b, dict) or set(a) != set(b):
                return f"keys differ at {where or 'top'}"
            return next((r for k in a if (r := walk(a[k], b[k], f"{where}.{k}"))), None)
        if isinstance(a, list):
            if not isinstance(b, list) or len(a) != len(b):
                return f"length differs at {where or 'top'}"
            return next((r for i, (x, y) in enumerate(zip(a, b)) if (r := walk(x, y, f"{where}[{i}]"))), None)
        return None

    def numbers(a, b):
        if isinstance(a, dict):
            for k in a:
                yield from numbers(a[k], b[k])
        elif isinstance(a, list):
            for x, y in zip(a, b):
                yield from numbers(x, y)
        else:
            yield a, b

    structural = walk(shown, actual, "")
    if structural:
        return structural
    # Digits as printed: a JSON re-read loses them, so take them from the text itself.
    printed_numbers = re.findall(r"-?\d+(?:\.(\d+))?(?:[eE][-+]?\d+)?", printed)
    decimals = [len(frac) for frac in printed_numbers]
    for i, (a, b) in enumerate(numbers(shown, actual)):
        d = decimals[i] if i < len(decimals) else 0
        if abs(float(a) - float(b)) > 0.5 * 10 ** (-d) + 1e-12:
            return f"printed {a}, but the case holds {b} (differs beyond the {d} printed decimals)"
    return None
