"""The output checks stage, run in the trusted judge on decoded outputs.

Every check has the same shape, ``check(ctx) -> Mismatch | None``, and is
picked by name from ``[checks] output`` in a problem's metadata (DMOJ's
checker idea). They run in order and the first finding decides the case, so
a shape error is never reported as a value error.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..common.trees import MISSING, dotted, get_path
from ..problem import Case, Meta, OutputLeaf, Problem, ProblemError
from ..problem.inputs import JaxInput, input_dims, typed_input
from ..sandbox.wire import Leaf, Opaque


@dataclass(frozen=True)
class Mismatch:
    """Why an output does not pass a check."""

    reason: str  # structure | type | dtype | shape | nan | value | <arg>_mutated
    message: str
    detail: dict = field(default_factory=dict)


@dataclass
class CheckContext:
    meta: Meta
    got: Any  # decoded output tree
    expected: Any  # plain JSON tree from the case file
    inputs: dict  # typed inputs (JaxInput leaves) as sent to the child
    args_after: Any  # decoded arguments after the call
    dims: dict[str, int]
    worst: dict = field(default_factory=dict)  # filled by the value check for the report

    @classmethod
    def for_input(cls, meta: Meta, raw: Any, got: Any, expected: Any, args_after: Any) -> "CheckContext":
        """The context of one case (or any input ``raw`` as a case file holds it): its
        typed inputs and dims bound here, once."""
        return cls(meta, got, expected, typed_input(meta, raw), args_after, input_dims(meta, raw))

    @classmethod
    def for_case(cls, problem: Problem, case: Case, got: Any, args_after: Any) -> "CheckContext":
        """The context of one of the problem's cases, from its bound inputs."""
        inputs, dims = problem.bind(case)
        return cls(problem.meta, got, case.expected, inputs, args_after, dims)

    def expected_leaf(self, spec: OutputLeaf) -> np.ndarray:
        return np.asarray(get_path(self.expected, spec.path), dtype=np.float64)

    def shape(self, spec: OutputLeaf) -> tuple[int, ...]:
        return tuple(d if isinstance(d, int) else self.dims[d] for d in spec.shape)


Check = Callable[[CheckContext], "Mismatch | None"]
CHECKS: dict[str, Check] = {}


def register(name: str) -> Callable[[Check], Check]:
    def deco(fn: Check) -> Check:
        CHECKS[name] = fn
        return fn
    return deco


_KINDS = {"jax": "JAX array", "numpy": "NumPy array", "npscalar": "NumPy scalar"}


def _describe(node: Any, detail: bool = False) -> str:
    """What a decoded output node is; with ``detail`` an array's dtype and shape too."""
    if isinstance(node, Leaf):
        if detail:
            return f"{_KINDS.get(node.cls, node.cls)} {node.dtype} {tuple(node.array.shape)}"
        return _KINDS.get(node.cls, f"Python {node.cls}")
    if isinstance(node, Opaque):
        return node.type_name
    if isinstance(node, dict):
        return "dict"
    if isinstance(node, (list, tuple)):
        return f"{type(node).__name__} of {len(node)}" if detail else type(node).__name__
    return "None" if node is None else type(node).__name__


def _structure(spec: Any, got: Any, path: tuple[str, ...]) -> Mismatch | None:
    if not isinstance(got, dict):
        return Mismatch("structure",
                        f"'{dotted(path)}' should be a dict with keys {sorted(spec)}, got {_describe(got)}")
    missing, extra = sorted(set(spec) - set(got)), sorted(set(got) - set(spec))
    if missing or extra:
        parts = ([f"missing {missing}"] if missing else []) + ([f"unexpected {extra}"] if extra else [])
        where = "the result" if not path else f"'{dotted(path)}'"
        return Mismatch("structure", f"{where} has the wrong keys: {', '.join(parts)}")
    for key, sub in spec.items():
        if isinstance(sub, dict) and "dtype" not in sub:
            found = _structure(sub, got[key], path + (key,))
            if found:
                return found
    return None


@register("structure")
def check_structure(ctx: CheckContext) -> Mismatch | None:
    return _structure(ctx.meta.output_tree, ctx.got, ())


def _leaves(ctx: CheckContext) -> list[tuple[OutputLeaf, Leaf]] | Mismatch:
    """Every output leaf the metadata names, or why one is not there: each check stands
    on its own, so a problem may name any subset of them."""
    out = []
    for spec in ctx.meta.outputs:
        node = get_path(ctx.got, spec.path, MISSING)
        if node is MISSING:
            return Mismatch("structure", f"the result has no '{dotted(spec.path)}'")
        if not isinstance(node, Leaf):
            return Mismatch("type", f"'{dotted(spec.path)}' should be an array or a number, got {_describe(node)}")
        out.append((spec, node))
    return out


@register("type")
def check_type(ctx: CheckContext) -> Mismatch | None:
    for spec in ctx.meta.outputs:
        node = get_path(ctx.got, spec.path, MISSING)
        want = {"jax": ("jax",), "numpy": ("numpy",),
                "any": ("jax", "numpy", "npscalar", "float", "int", "bool")}[spec.container]
        if node is MISSING:
            return Mismatch("structure", f"the result has no '{dotted(spec.path)}'")
        if not isinstance(node, Leaf) or node.cls not in want:
            expected = {"jax": "a JAX array", "numpy": "a NumPy array", "any": "a number or array"}[spec.container]
            return Mismatch("type", f"'{dotted(spec.path)}' should be {expected}, got {_describe(node)}")
    return None


@register("dtype")
def check_dtype(ctx: CheckContext) -> Mismatch | None:
    leaves = _leaves(ctx)
    if isinstance(leaves, Mismatch):
        return leaves
    for spec, node in leaves:
        if node.dtype != spec.dtype:
            return Mismatch("dtype", f"'{dotted(spec.path)}' should have dtype {spec.dtype}, got {node.dtype}")
    return None


@register("shape")
def check_shape(ctx: CheckContext) -> Mismatch | None:
    leaves = _leaves(ctx)
    if isinstance(leaves, Mismatch):
        return leaves
    for spec, node in leaves:
        want = ctx.shape(spec)
        if tuple(node.array.shape) != want:
            return Mismatch("shape", f"'{dotted(spec.path)}' should have shape {want}, got {tuple(node.array.shape)}")
    return None


@register("finite")
def check_finite(ctx: CheckContext) -> Mismatch | None:
    leaves = _leaves(ctx)
    if isinstance(leaves, Mismatch):
        return leaves
    for spec, node in leaves:
        arr = node.array
        if arr.dtype.kind in "fc" or arr.dtype.name == "bfloat16":
            bad = ~np.isfinite(arr.astype(np.complex128 if arr.dtype.kind == "c" else np.float64))
            if bad.any():
                where = [list(map(int, ix)) for ix in np.argwhere(bad)[:5]]
                return Mismatch("nan", f"'{dotted(spec.path)}' holds {int(bad.sum())} NaN or infinite value(s)",
                                {"leaf": dotted(spec.path), "positions": where})
    return None


def compare(spec: OutputLeaf, got: np.ndarray, expected: np.ndarray) -> dict:
    """Worst element by error relative to the tolerance (``excess`` <= 1 passes)."""
    g = got.astype(np.float64)
    with np.errstate(invalid="ignore"):
        err = np.abs(g - expected)
    # NaN against NaN is a match (a mistake table may hold NaN); NaN against a number is not.
    both, one = np.isnan(g) & np.isnan(expected), np.isnan(g) ^ np.isnan(expected)
    err = np.where(both, 0.0, np.where(one, np.inf, err))
    allowed = spec.atol + spec.rtol * np.abs(np.where(np.isnan(expected), 0.0, expected))
    with np.errstate(divide="ignore", invalid="ignore"):
        excess = np.where(allowed > 0, err / np.where(allowed > 0, allowed, 1), np.where(err > 0, np.inf, 0.0))
    if excess.size == 0:
        return {"excess": 0.0}
    i = int(np.argmax(excess))
    ix = tuple(int(v) for v in np.unravel_index(i, excess.shape))
    e, v = float(expected.flat[i]), float(g.flat[i])
    return {"leaf": dotted(spec.path), "index": list(ix), "expected": e, "got": v, "abs_err": float(err.flat[i]),
            "rel_err": float(err.flat[i] / abs(e)) if e and np.isfinite(e) else None,
            "atol": spec.atol, "rtol": spec.rtol, "excess": float(excess.flat[i])}


@register("value")
def check_value(ctx: CheckContext) -> Mismatch | None:
    leaves = _leaves(ctx)
    if isinstance(leaves, Mismatch):
        return leaves
    shaped = check_shape(ctx)  # values can only be compared element by element
    if shaped:
        return shaped
    worst: dict = {"excess": 0.0}
    failing = None
    for spec, node in leaves:
        if node.array.dtype.kind not in "biuf" and node.array.dtype.name != "bfloat16":
            return Mismatch("dtype", f"'{dotted(spec.path)}' holds {node.dtype} values, which cannot be compared")
        cmp = compare(spec, node.array, ctx.expected_leaf(spec))
        if cmp["excess"] >= worst["excess"]:
            worst = cmp
        if cmp["excess"] > 1 and failing is None:
            failing = cmp
    ctx.worst = worst
    if failing:
        return Mismatch("value", f"'{failing['leaf']}' is off at index {tuple(failing['index'])}: expected "
                       f"{failing['expected']:.9g}, got {failing['got']:.9g} (abs err {failing['abs_err']:.3g}, "
                       f"tolerance atol={failing['atol']:g} rtol={failing['rtol']:g})", failing)
    return None


def _same(before: Any, after: Any) -> bool:
    if isinstance(before, dict):
        return isinstance(after, dict) and set(before) == set(after) and all(_same(before[k], after[k]) for k in before)
    if isinstance(before, JaxInput):
        return (isinstance(after, Leaf) and after.cls == "jax" and after.array.dtype == before.array.dtype
                and after.array.shape == before.array.shape
                and np.array_equal(after.array, before.array, equal_nan=True))
    if isinstance(before, float):
        return isinstance(after, Leaf) and after.cls == "float" and after.array.item() == before
    return isinstance(after, Leaf) and after.array.item() == before


@register("inputs_unchanged")
def check_inputs_unchanged(ctx: CheckContext) -> Mismatch | None:
    if ctx.args_after is None:
        return Mismatch("structure", "the arguments did not come back after the call, so they cannot be checked")
    for name in ctx.meta.entry.args:
        if not _same(ctx.inputs[name], ctx.args_after.get(name)):
            return Mismatch(f"{name}_mutated",
                            f"the argument '{name}' was modified by the call; leave inputs unchanged")
    return None


def resolve(meta: Meta, where: str = "problem.toml") -> tuple[Check, ...]:
    """The checks ``[checks] output`` names, or ProblemError naming an unknown one."""
    unknown = [n for n in meta.output_checks if n not in CHECKS]
    if unknown:
        raise ProblemError(where, f"'checks.output' names unknown check '{unknown[0]}' (known: {', '.join(CHECKS)})")
    return tuple(CHECKS[n] for n in meta.output_checks)


def run_checks(ctx: CheckContext, names: tuple[str, ...]) -> Mismatch | None:
    for name in names:
        found = CHECKS[name](ctx)
        if found:
            return found
    return None


def tree_diff(meta: Meta, dims: dict[str, int], got: Any) -> list[list[str]]:
    """Side-by-side rows (path, expected, got) of the output's structure, shapes and dtypes."""
    rows = []
    seen = set()
    for spec in meta.outputs:
        shape = tuple(d if isinstance(d, int) else dims[d] for d in spec.shape)
        want = f"{'JAX array' if spec.container == 'jax' else spec.container} {spec.dtype} {shape}"
        node = get_path(got, spec.path, MISSING)
        rows.append([dotted(spec.path), want, "(missing)" if node is MISSING else _describe(node, detail=True)])
        seen.add(spec.path)

    def extra(node: Any, path: tuple[str, ...]) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                extra(value, path + (key,))
        elif path not in seen and not any(path[:len(p)] == p for p in seen):
            rows.append([dotted(path) if path else "<result>", "(not expected)", _describe(node, detail=True)])

    extra(got, ())
    return rows
