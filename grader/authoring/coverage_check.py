"""Validate check: how much of the constraint box the hidden suite reaches.

For each numeric input leaf, the range of values the hidden cases hold, beside the range
the constraints allow, and the smallest magnitude other than zero; for each dim, the sizes
used beside the sizes allowed. A bound the hidden cases never come near (within a tenth
of the allowed span) and a dim size never used at an end are warnings: a mistake that only
shows at the extremes (a residual clipped at a threshold inside the box, an epsilon that
matters only for tiny norms) passes a suite that never goes there. Derived quantities
(residuals, norms) are the author's to reach with recipes; this check sees the leaves.
"""
from __future__ import annotations

import numpy as np

from ..common.trees import dotted, get_path
from ..problem import Problem
from ..problem.inputs import InputError, input_dims
from .context import Finding, Validation

CHECK = "coverage"
NEAR = 0.1  # of the allowed span: a bound counts as reached within this


def leaf_ranges(problem: Problem) -> dict[str, tuple[float, float, float | None]]:
    """Per numeric input leaf: the smallest and largest value over the hidden cases, and
    the smallest nonzero magnitude (None when every value is zero)."""
    values: dict[str, list[np.ndarray]] = {}
    for case in problem.cases:
        if not case.hidden:
            continue
        for leaf in problem.meta.inputs:
            try:
                arr = np.asarray(get_path(case.input, leaf.path), dtype=np.float64).ravel()
            except (KeyError, TypeError, ValueError):
                continue
            values.setdefault(dotted(leaf.path), []).append(arr)
    out: dict[str, tuple[float, float, float | None]] = {}
    for name, arrays in values.items():
        flat = np.concatenate(arrays) if arrays else np.zeros(0)
        if flat.size == 0:
            continue
        nonzero = np.abs(flat[flat != 0])
        out[name] = (float(flat.min()), float(flat.max()), float(nonzero.min()) if nonzero.size else None)
    return out


def dim_sizes(problem: Problem) -> dict[str, set[int]]:
    """Per dim, the sizes the hidden cases use."""
    out: dict[str, set[int]] = {d: set() for d in problem.meta.dims}
    for case in problem.cases:
        if case.hidden:
            try:
                for d, n in input_dims(problem.meta, case.input).items():
                    out.setdefault(d, set()).add(n)
            except InputError:
                continue  # check_cases says so
    return out


def check_coverage(ctx: Validation) -> list[Finding]:
    p = ctx.problem
    if not any(c.hidden for c in p.cases):
        return []
    ranges = leaf_ranges(p)
    said, unreached = [], []
    for leaf in p.meta.inputs:
        name = dotted(leaf.path)
        if name not in ranges:
            continue
        lo, hi, tiny = ranges[name]
        allowed = f"[{_g(leaf.min)}, {_g(leaf.max)}]"
        said.append(f"{name} [{_g(lo)}, {_g(hi)}] of {allowed}" + (f", smallest |nonzero| {_g(tiny)}" if tiny else ""))
        if leaf.min is None or leaf.max is None:
            continue
        near = NEAR * (leaf.max - leaf.min)
        if lo > leaf.min + near:
            unreached.append(f"{name} never below {_g(lo)} (the constraints allow {_g(leaf.min)})")
        if hi < leaf.max - near:
            unreached.append(f"{name} never above {_g(hi)} (the constraints allow {_g(leaf.max)})")
    for d, used in dim_sizes(p).items():
        low, high = p.meta.dims[d]
        missing = [str(n) for n in (low, high) if n not in used]
        said.append(f"{d} in {{{', '.join(map(str, sorted(used)))}}} of [{low}, {high}]")
        if missing:
            unreached.append(f"{d} = {' and '.join(missing)} is never used (the constraints allow it)")
    out = [Finding(CHECK, "pass", "the hidden cases cover " + "; ".join(said))]
    out += [Finding(CHECK, "warn", f"the hidden cases do not reach the constraints' extremes: {u}")
            for u in unreached]
    return out


def _g(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"
