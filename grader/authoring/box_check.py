"""Validate check: a problem is sound over its WHOLE declared constraint box.

The stored cases come from the generator's distribution; an author's ``add-case``
may bring any input the constraints admit. This check samples the box itself: the
corners of ``[dims]`` (all at min, all at max, alternating), and for the values every
input at its min, its max, a mix of both, zero (or the bound nearest it), ties (one
value everywhere, repeated rows, a coarse grid: short mantissas, so that sums, ReLU
pre-activations and norms are exactly 0 in float32 too), near-zero and log-spread
values, one input at an extreme with the rest random, and random points; then random
points moved (by bisection on the first oracle) onto a zero of an output element.
Every sample passes the problem's input validator. The reference answers all of them
in one sandbox run, every oracle each in this process, and each oracle must agree
with the reference within the tolerance (``excess <= 1``). A disagreement only at a
zero of an output is a warning: there the rounding of larger terms shows, which no
rtol covers. The worst sample is written to the judge's cache, ready for ``grader
add-case``. Seeded: a problem always gets the same samples.
"""
from __future__ import annotations

import copy
import json
import zlib

import numpy as np
import numpy.typing as npt

from ..common.files import cache_dir, write_atomic
from ..common.trees import dotted, get_path, set_path
from ..judge.reference import reference_outputs
from ..problem import Meta, Problem, ProblemError
from ..problem.inputs import InputError, canonical, check_input, input_dims
from ..problem.meta import InputLeaf
from ..problem.modules import oracles
from .cases import oracle_excess
from .context import Validation, Finding

SAMPLES = 64
ROOTS = 16  # of them, random points moved onto a zero of an output element
SEED = 7919
MODES = ("random", "lo", "hi", "extremes", "zero", "grid", "tie", "rows", "small", "log")
CORE = ("lo", "hi", "extremes", "zero", "grid", "random")  # every shape gets these


# ---------------------------------------------------------------- the box

def dim_corners(meta: Meta) -> list[dict[str, int]]:
    """Sizes from the dims' extremes: all at min, all at max, alternating and its mirror."""
    names = list(meta.dims)
    lo = {d: meta.dims[d][0] for d in names}
    hi = {d: meta.dims[d][1] for d in names}
    alt = {d: (lo, hi)[i % 2][d] for i, d in enumerate(names)}
    mirror = {d: (hi, lo)[i % 2][d] for i, d in enumerate(names)}
    out: list[dict[str, int]] = []
    for corner in (lo, hi, alt, mirror):
        if corner not in out:
            out.append(corner)
    return out


def _is_int(leaf: InputLeaf) -> bool:
    return leaf.kind == "int" or (leaf.kind == "array" and leaf.dtype is not None
                                  and leaf.dtype.startswith(("int", "uint", "bool")))


def leaf_bounds(leaf: InputLeaf, cases: list) -> tuple[float, float]:
    """The leaf's declared [min, max]; an open side falls back to the integer dtype's
    range, else to the range the stored cases use (the box has no other edge there)."""
    lo, hi = leaf.min, leaf.max
    if _is_int(leaf) and leaf.kind == "array" and (lo is None or hi is None):
        info = np.iinfo(np.uint8 if leaf.dtype == "bool" else np.dtype(leaf.dtype))
        lo = info.min if lo is None else lo
        hi = min(info.max, 1 if leaf.dtype == "bool" else info.max) if hi is None else hi
    if lo is None or hi is None:
        seen = [np.asarray(get_path(c.input, leaf.path, []), dtype=np.float64) for c in cases]
        seen = [s for s in seen if s.size]
        lo = (min(float(s.min()) for s in seen) if seen else -1.0) if lo is None else lo
        hi = (max(float(s.max()) for s in seen) if seen else 1.0) if hi is None else hi
    return float(lo), float(max(lo, hi))


def _values(rng: np.random.Generator, mode: str, shape: tuple[int, ...], lo: float, hi: float,
            integer: bool) -> np.ndarray:
    near0 = min(max(0.0, lo), hi)  # zero, or the bound nearest to it
    if mode == "lo":
        v = np.full(shape, lo)
    elif mode == "hi":
        v = np.full(shape, hi)
    elif mode == "extremes":
        v = np.where(rng.random(shape) < 0.5, lo, hi)
    elif mode == "zero":
        v = np.full(shape, near0)
    elif mode == "grid":
        v = _short(lo + (hi - lo) * rng.integers(0, 5, size=shape) / 4.0, lo, hi)
    elif mode == "tie":
        v = np.full(shape, _short(rng.uniform(lo, hi), lo, hi))
    elif mode == "rows" and len(shape) >= 1 and shape[0] > 0:
        v = np.broadcast_to(_short(rng.uniform(lo, hi, size=shape[1:]), lo, hi), shape).copy()
    elif mode == "small":
        width = 1e-3 * max(hi - lo, 1e-30)
        v = np.clip(near0 + rng.uniform(-width, width, size=shape), lo, hi)
    elif mode == "log":
        top = max(abs(lo), abs(hi))
        floor = max(min(abs(lo), abs(hi)) if lo > 0 or hi < 0 else 0.0, top * 1e-6, 1e-30)
        mag = np.exp(rng.uniform(np.log(floor), np.log(max(top, floor)), size=shape))
        sign = np.where(rng.random(shape) < 0.5, -1.0, 1.0) if lo < 0 < hi else np.sign(hi or 1.0)
        v = np.clip(sign * mag, lo, hi)
    else:
        v = rng.uniform(lo, hi, size=shape)
    if integer:
        v = np.clip(np.floor(v + (0.5 if mode in ("random", "tie", "rows", "log") else 0.0)),
                    np.ceil(lo), np.floor(hi))
        if mode == "random":
            v = rng.integers(int(np.ceil(lo)), int(np.floor(hi)) + 1, size=shape, dtype=np.int64)
    return np.asarray(v)


def _short(v, lo: float, hi: float, bits: int = 4) -> np.ndarray:
    """Values with a ``bits``-bit mantissa: sums and products of a few of them are exact in
    float32 in any order, so the ties they make (a pre-activation, a sum or a norm that is
    exactly 0, equal rows) are ties for the reference as much as for the oracles."""
    m, e = np.frexp(np.asarray(v, dtype=np.float64))
    return np.clip(np.ldexp(np.round(m * 2 ** bits) / 2 ** bits, e), lo, hi)


def _f32_in(v: npt.ArrayLike, lo: float, hi: float) -> np.ndarray:
    """float32-representable values inside [lo, hi] (the reference sees float32 inputs;
    the oracles must see the very same numbers)."""
    lo32, hi32 = np.float32(lo), np.float32(hi)
    if float(lo32) < lo:
        lo32 = np.nextafter(lo32, np.float32(np.inf))
    if float(hi32) > hi:
        hi32 = np.nextafter(hi32, np.float32(-np.inf))
    return np.clip(np.asarray(v, dtype=np.float64).astype(np.float32), lo32, hi32)


def _leaf_value(rng, leaf: InputLeaf, mode: str, dims: dict[str, int], bounds) -> object:
    lo, hi = bounds
    integer = _is_int(leaf)
    if leaf.kind == "array":
        shape = tuple(d if isinstance(d, int) else dims[d] for d in leaf.shape)
        v = _values(rng, mode, shape, lo, hi, integer)
        return v.astype(np.int64).tolist() if integer else _f32_in(v, lo, hi).astype(np.float64).tolist()
    x = float(_values(rng, mode, (), lo, hi, integer))
    if integer:
        return int(x)
    if mode in ("lo", "hi", "zero"):  # the declared numbers themselves, as an author would type them
        return x
    return float(min(max(float(np.float32(x)), lo), hi))


def _plans(rng: np.random.Generator, meta: Meta, shapes: list[dict], count: int) -> list[tuple[dict, dict]]:
    """(dims, {leaf index: mode}) for every sample: the core modes on every shape, the tie,
    repeated-row, near-zero and log modes on the largest shape, then each input alone at
    its min and at its max, then random mixes (round robin over the shapes)."""
    n = len(meta.inputs)
    out = [(s, dict.fromkeys(range(n), m)) for s in shapes for m in CORE]
    out += [(shapes[min(1, len(shapes) - 1)], dict.fromkeys(range(n), m)) for m in ("tie", "rows", "small", "log")]
    extra = [{j: (m if j == i else "random") for j in range(n)} for i in range(n) for m in ("lo", "hi")]
    while len(out) + len(extra) < count:
        extra.append({i: MODES[int(rng.integers(0, len(MODES)))] for i in range(n)})
    for k, plan in enumerate(extra[:max(0, count - len(out))]):
        out.append((shapes[k % len(shapes)], plan))
    return out


def box_samples(problem: Problem, count: int = SAMPLES, seed: int = SEED) -> list[tuple[str, dict, str]]:
    """(id, raw input, label) for every distinct sample of the problem's constraint box."""
    meta = problem.meta
    rng = np.random.default_rng([seed, zlib.crc32(problem.id.encode())])
    bounds = [leaf_bounds(leaf, problem.cases) for leaf in meta.inputs]
    out, seen = [], set()
    for k, (dims, modes) in enumerate(_plans(rng, meta, dim_corners(meta), count)):
        raw: dict = {}
        for i, leaf in enumerate(meta.inputs):
            set_path(raw, leaf.path, _leaf_value(rng, leaf, modes[i], dims, bounds[i]))
        shape = " ".join(f"{d}={v}" for d, v in dims.items())
        kinds = set(modes.values())
        what = (next(iter(kinds)) if len(kinds) == 1 else
                ", ".join(f"{dotted(meta.inputs[i].path)}={m}" for i, m in modes.items() if m != "random")
                + " (others random)")
        try:
            key = canonical(meta, raw)
        except (InputError, ValueError, TypeError):
            key = json.dumps(raw, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        out.append((f"box_{k:03d}", raw, f"{shape}; {what}".strip("; ")))
    return out


# ------------------------------------------------- zeros of the outputs

def _flat_outputs(meta: Meta, fn, raw: dict) -> np.ndarray:
    out = fn(*[copy.deepcopy(raw[a]) for a in meta.entry.args])
    return np.concatenate([np.asarray(get_path(out, s.path), dtype=np.float64).ravel() for s in meta.outputs])


def _with(raw: dict, leaf: InputLeaf, index: int | None, value: float) -> dict:
    new = copy.deepcopy(raw)
    if index is None:
        set_path(new, leaf.path, value)
    else:
        arr = np.asarray(get_path(raw, leaf.path), dtype=np.float64)
        arr.flat[index] = value
        set_path(new, leaf.path, arr.tolist())
    return new


def _root(rng, meta: Meta, fn, raw: dict, leaf: InputLeaf, bounds) -> tuple[dict, str] | None:
    """``raw`` with one element of ``leaf`` moved (by bisection on the oracle) to where an
    output element crosses zero: there the answer is small and every rounding error of
    the larger terms behind it shows. A jump across zero (a discontinuity) is no root."""
    lo, hi = (float(_f32_in(np.float64(b), *bounds)) for b in bounds)
    size = int(np.asarray(get_path(raw, leaf.path)).size) if leaf.kind == "array" else 0
    if lo >= hi or (leaf.kind == "array" and not size):
        return None
    index = int(rng.integers(0, size)) if leaf.kind == "array" else None
    f_lo, f_hi = (_flat_outputs(meta, fn, _with(raw, leaf, index, v)) for v in (lo, hi))
    crossing = np.flatnonzero(np.sign(f_lo) * np.sign(f_hi) < 0)
    if not crossing.size:
        return None
    k = int(crossing[rng.integers(0, crossing.size)])
    a, b, fa, fb = lo, hi, f_lo[k], f_hi[k]
    for _ in range(64):
        m = float(_f32_in(np.float64((a + b) / 2), lo, hi))
        if m in (a, b):
            break
        fm = _flat_outputs(meta, fn, _with(raw, leaf, index, m))[k]
        a, fa, b, fb = (m, fm, b, fb) if np.sign(fm) == np.sign(fa) else (a, fa, m, fm)
        if abs(fm) <= 1e-7 * max(abs(f_lo[k]), abs(f_hi[k])):  # cancelled to float32's last bits
            break
    v, fv = (a, fa) if abs(fa) <= abs(fb) else (b, fb)
    if not abs(fv) <= 1e-3 * max(abs(f_lo[k]), abs(f_hi[k])):
        return None
    where = dotted(leaf.path) + (f"[{index}]" if index is not None else "")
    return _with(raw, leaf, index, v), f"output element {k} crosses zero at {where} = {v:.9g}"


def root_samples(problem: Problem, fn, count: int, seed: int = SEED) -> list[tuple[str, dict, str]]:
    """Up to ``count`` random points of the box (on every corner shape) pushed onto a zero
    of an output element, found with the oracle ``fn``."""
    meta = problem.meta
    rng = np.random.default_rng([seed, zlib.crc32(problem.id.encode()), 1])
    bounds = [leaf_bounds(leaf, problem.cases) for leaf in meta.inputs]
    floats = [i for i, leaf in enumerate(meta.inputs) if not _is_int(leaf)]
    shapes = dim_corners(meta)
    out: list[tuple[str, dict, str]] = []
    for attempt in range(4 * count):
        if len(out) >= count or not floats:
            break
        dims = shapes[attempt % len(shapes)]
        raw: dict = {}
        for i, leaf in enumerate(meta.inputs):
            set_path(raw, leaf.path, _leaf_value(rng, leaf, "random", dims, bounds[i]))
        i = floats[int(rng.integers(0, len(floats)))]
        try:
            found = _root(rng, meta, fn, raw, meta.inputs[i], bounds[i])
        except Exception:  # the oracle rejects the point: the main pass judges the samples it keeps
            found = None
        if found:
            shape = " ".join(f"{d}={v}" for d, v in dims.items())
            out.append((f"root_{len(out):03d}", found[0], f"{shape}; random, {found[1]}"))
    return out


# ---------------------------------------------------------------- the check

def _keep(problem: Problem, raw: dict, kind: str = "worst") -> str:
    path = cache_dir("box") / f"{problem.id}-{kind}.json"
    write_atomic(path, json.dumps(raw, indent=1) + "\n")
    return f"input written to {path} (grader add-case {problem.id} {path} --hidden)"


def check_box(ctx: Validation) -> list[Finding]:
    """Fails when the reference cannot answer a sample, an oracle raises, or any sample of
    the box proper disagrees; a disagreement only at a zero of an output is a warning
    (there relative tolerance is void and atol must cover the rounding of larger terms)."""
    p = ctx.problem
    fns = oracles(p)
    # The first oracle listed drives the zero search: a choice by speed would make the
    # samples, and so the findings, differ from run to run.
    roots = root_samples(p, next(iter(fns.values())), ROOTS)
    samples = box_samples(p, SAMPLES - len(roots)) + roots
    if not samples:
        raise ProblemError(p.root / "problem.toml", "the constraint box gave no sample")
    labels = {cid: label for cid, _, label in samples}
    for cid, raw, label in samples:
        try:
            check_input(p.meta, raw)
        except InputError as exc:  # fail closed: the sampler must stay inside the declared box
            return [Finding("constraint box", "fail", f"sample {cid} ({label}) breaks the problem's own "
                            f"constraints: {exc}")]
    inputs = {cid: raw for cid, raw, _ in samples}
    computed = next(ctx.pool.submit_all(lambda box, _: reference_outputs(p, list(inputs.items()), box), [None]))
    if computed.problems:
        cid, why = next(iter(computed.problems.items()))
        return [Finding("constraint box", "fail", f"the reference cannot answer {len(computed.problems)} of "
                        f"{len(inputs)} samples of the box; first {cid} ({labels[cid]}): {why}; "
                        f"{_keep(p, inputs[cid])}")]
    worst = {"box": (-1.0, "", "", ""), "root": (-1.0, "", "", "")}  # excess, sample, oracle, leaf
    bad = {"box": 0, "root": 0}
    for cid, raw in inputs.items():
        group = "root" if cid.startswith("root_") else "box"
        for name, fn in fns.items():
            try:
                excess, where = oracle_excess(p, fn, copy.deepcopy(raw), computed.expected[cid])
            except Exception as exc:  # author code: any failure is a finding, never a crash of validate
                return [Finding("constraint box", "fail", f"oracle '{name}' raised {type(exc).__name__}: {exc} "
                                f"on sample {cid} ({labels[cid]}); {_keep(p, raw)}")]
            bad[group] += not excess <= 1.0
            if not excess <= worst[group][0]:
                worst[group] = (excess, cid, name, where)
    shapes = len({json.dumps(input_dims(p.meta, raw), sort_keys=True) for raw in inputs.values()})
    n_box = len(inputs) - len(roots)
    excess, cid, name, where = worst["box"]
    if bad["box"]:
        out = [Finding("constraint box", "fail", f"the reference and the oracles disagree on {bad['box']} of "
                       f"{n_box} samples of the declared box; worst: oracle '{name}' on '{where}', {excess:.3g}x "
                       f"the tolerance, sample {cid} ({labels[cid]}); narrow the constraints or widen the "
                       f"tolerances; {_keep(p, inputs[cid])}")]
    else:
        out = [Finding("constraint box", "pass", f"reference and {len(fns)} oracle(s) agree on all {n_box} samples "
                       f"of the box ({shapes} shapes: corners, extremes, zeros, ties, random); largest error "
                       f"{max(excess, 0):.3f} of the tolerance ({cid}: {labels[cid]})")]
    excess, cid, name, where = worst["root"]
    if bad["root"]:
        out.append(Finding("zeros of the outputs", "warn", f"where an output crosses zero the reference is "
                           f"{excess:.3g}x the tolerance from oracle '{name}' on '{where}' (sample {cid}: "
                           f"{labels[cid]}): rounding of larger terms, which no rtol covers; a case there would be "
                           f"unfair unless atol covers it; {_keep(p, inputs[cid], 'zero')}"))
    elif roots:
        out.append(Finding("zeros of the outputs", "pass", f"reference and oracles agree at {len(roots)} zeros of "
                           f"output elements; largest error {excess:.3f} of the tolerance ({cid})"))
    return out
