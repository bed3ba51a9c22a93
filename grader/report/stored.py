"""A report as the service stores it: bounded in size, and storable on every database.

A submission controls what it returns and prints, so a stored report must not grow
with it. A value (a case's input, expected or returned output, a counterexample's)
is kept in full up to ``VALUE_CHARS`` characters of JSON, the most the result panel
shows of one; past that each large array becomes a summary (shape, dtype, element
count, range, the first elements, the elements farthest from the expected value, a
hash of the whole), and the report lists what it summarised. Ordinary reports are
unchanged by this.

PostgreSQL refuses NUL in text and JSONB (``\\u0000 cannot be converted to text``), so
NUL in any string or key a submission controls is written as the visible escape
``\\x00``, on every database alike, so that both store the same report."""
from __future__ import annotations

import hashlib
import json
import math
from typing import Any

VALUE_CHARS = 4000  # the result panel cuts a value at this length (web/report_view.SHOWN_CHARS)
# A stored view never exceeds this much JSON: past it, printed text and messages are cut,
# values summarised harder, and at last cases keep only their verdict line.
VIEW_CHARS = 256 * 1024
TRIMMED_CHARS = 500
SUMMARY_HEAD = 8  # first elements kept in a summary
SUMMARY_WORST = 5  # elements farthest from the expected ones
VALUES = ("input", "expected", "got")


def storable(value: Any) -> Any:
    """``value`` with NUL written as ``\\x00`` in every string and key."""
    if isinstance(value, str):
        return value.replace("\x00", "\\x00") if "\x00" in value else value
    if isinstance(value, dict):
        return {storable(k): storable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [storable(v) for v in value]
    return value


def _chars(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), default=str))


def _flatten(value: Any, shape: list[int]) -> list | None:
    """The numbers of a nested list of numbers, and its shape (in ``shape``); None when ragged or not numbers."""
    if isinstance(value, list):
        shape.append(len(value))
        if not value:
            return []
        parts: list[tuple[list[int], list]] = []
        for item in value:
            inner: list[int] = []
            flat = _flatten(item, inner)
            if flat is None or (parts and inner != parts[0][0]):
                return None
            parts.append((inner, flat))
        shape.extend(parts[0][0])
        return [x for _, flat in parts for x in flat]
    if isinstance(value, bool) or isinstance(value, (int, float)) or value in ("NaN", "Infinity", "-Infinity"):
        return [value]
    return None


def _number(x: Any) -> float:
    if isinstance(x, str):
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[x]
    return float(x)


def _kind(flat: list) -> str:
    if all(isinstance(x, bool) for x in flat):
        return "bool"
    if all(isinstance(x, int) and not isinstance(x, bool) for x in flat):
        return "int"
    return "float"


def _index(i: int, shape: list[int]) -> list[int]:
    out = []
    for d in reversed(shape):
        out.append(i % d if d else 0)
        i //= d or 1
    return out[::-1]


def summarize(value: Any, dtype: str | None = None, expected: Any = None) -> dict:
    """A large value as a summary a person can read, with a hash of the whole."""
    digest = hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()
    shape: list[int] = []
    flat = _flatten(value, shape)
    if flat is None:
        return {"summary": {"kind": type(value).__name__, "chars": _chars(value), "sha256": digest}}
    numbers = [_number(x) for x in flat]
    finite = [x for x in numbers if math.isfinite(x)]
    out: dict[str, Any] = {"shape": shape, "dtype": dtype or _kind(flat), "elements": len(flat),
                           "min": min(finite) if finite else None, "max": max(finite) if finite else None,
                           "nonfinite": len(numbers) - len(finite), "first": flat[:SUMMARY_HEAD], "sha256": digest}
    want_shape: list[int] = []
    want = _flatten(expected, want_shape) if expected is not None else None
    if want is not None and want_shape == shape:
        wanted = [_number(x) for x in want]
        errors = sorted(range(len(numbers)), key=lambda i: -_gap(numbers[i], wanted[i]))[:SUMMARY_WORST]
        out["worst"] = [{"index": _index(i, shape), "expected": want[i], "got": flat[i]} for i in errors
                        if _gap(numbers[i], wanted[i]) > 0]
    return {"summary": out}


def _gap(a: float, b: float) -> float:
    if a == b:
        return 0.0
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
        return math.inf
    return abs(a - b)


def _at(tree: Any, key: str) -> Any:
    return tree.get(key) if isinstance(tree, dict) else None


def bound_value(value: Any, dtypes: dict[str, str], expected: Any = None, path: str = "",
                limit: int = VALUE_CHARS) -> tuple[Any, bool]:
    """``value`` with every leaf whose JSON is longer than ``limit`` summarised (then
    the whole, if it is still longer); and whether anything was."""
    if value is None or _chars(value) <= limit:
        return value, False
    if isinstance(value, dict):
        out, cut = {}, False
        for k, v in value.items():
            sub = f"{path}.{k}" if path else str(k)
            out[k], c = bound_value(v, dtypes, _at(expected, k), sub, limit)
            cut |= c
        if _chars(out) <= limit:
            return out, cut
    return summarize(value, dtypes.get(path), expected), True


def bound_report(doc: dict, inputs: dict[str, str] | None = None, outputs: dict[str, str] | None = None) -> dict:
    """The report ``doc`` (JSON) with large values summarised, and ``summarized`` naming
    them. ``inputs`` and ``outputs`` map dotted paths to their declared dtypes. The
    result is at most ``VIEW_CHARS`` characters of JSON."""
    dtypes = {"input": inputs or {}, "expected": outputs or {}, "got": outputs or {}}
    doc, cut = _bound(dict(doc), dtypes, VALUE_CHARS)
    if _chars(doc) > VIEW_CHARS:
        doc = _cut_text(doc)
        doc, more = _bound(doc, dtypes, TRIMMED_CHARS)
        cut += more + ["printed text and messages cut"]
    if _chars(doc) > VIEW_CHARS:
        detail = ("input", "expected", "got", "diff", "worst", "stdout")
        doc["cases"] = [{k: (None if k in detail else v) for k, v in c.items()} for c in doc.get("cases") or []]
        doc["counterexample"] = None
        cut.append("every case's details")
    doc["summarized"] = list(dict.fromkeys([*(doc.get("summarized") or []), *cut]))
    return doc


def _cut(text, limit: int = TRIMMED_CHARS):
    return text[:limit - 1] + "…" if isinstance(text, str) and len(text) > limit else text


def _cut_text(doc: dict) -> dict:
    doc = dict(doc, stdout=_cut(doc.get("stdout")), message=_cut(doc.get("message")))
    doc["cases"] = [dict(c, stdout=_cut(c.get("stdout")), message=_cut(c.get("message")))
                    for c in doc.get("cases") or []]
    for key in ("static_checks", "runtime_checks"):
        doc[key] = [dict(c, message=_cut(c.get("message"))) for c in doc.get(key) or []]
    return doc


def _bound(doc: dict, dtypes: dict, limit: int) -> tuple[dict, list[str]]:
    cut: list[str] = []
    cases = []
    for original in doc.get("cases") or []:
        case = dict(original)
        for key in VALUES:
            expected = original.get("expected") if key == "got" else None
            case[key], was = bound_value(original.get(key), dtypes[key], expected, limit=limit)
            if was:
                cut.append(f"case {case.get('id')}: {key}")
        cases.append(case)
    if "cases" in doc:
        doc["cases"] = cases
    if isinstance(doc.get("counterexample"), dict):
        given, ce = doc["counterexample"], dict(doc["counterexample"])
        for key in VALUES:
            ce[key], was = bound_value(given.get(key), dtypes[key], given.get("expected") if key == "got" else None,
                                       limit=limit)
            if was:
                cut.append(f"counterexample: {key}")
        doc["counterexample"] = ce
    return doc, cut
