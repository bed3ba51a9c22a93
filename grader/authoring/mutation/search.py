"""For a mutant no hidden case kills: search the problem's generator for a valid input on
which it differs from the oracle beyond tolerance, shrink that input along the problem's
dims, and tell a real difference from one that lives only on an exact tie.

A candidate input is *valid* when it meets the constraints, is no stored case, every
invariant of ``[oracles] invariants`` holds on it, and the reference's output on it
agrees with every oracle within tolerance: what ``grader add-case`` accepts and
``grader validate`` keeps, with the reference's output as the expected value.
A mutant *differs* on it when it fails the output checks against that expected value
and against the oracle's output (a run that raised, crashed or timed out differs too:
the reference ran there).

Ties: a difference is a tie when it vanishes as soon as the float inputs move by a few
float32 ulps (every float entry scaled by its own random factor within 1 +- 2**-17; integers never move,
so an integer tie such as a step equal to warmup_steps is an ordinary input). Only a
statement that says so excludes ties (``statement_excludes_ties``); the metadata parser
is strict, and a tie is exactly the kind of input an author may mean to test.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ...common.trees import get_path, set_path
from ...judge.output_checks import CheckContext, run_checks
from ...problem import Problem
from ...problem.inputs import InputError, canonical, check_input, input_dims, resized
from ...problem.modules import generated_inputs, load_module, oracles
from ...sandbox.wire import to_plain
from ..cases import oracle_excess

SEARCH_SEED = 9_100_417  # generator seeds reserved for the mutant search (never a stored case's)
SEEDS, PER_SEED = 3, 24
SHRINK_ROUNDS = 8
TIE_TRIALS = 4
TIE_STEP = 2.0 ** -17
_TIE_RULE = re.compile(r"\bties?\b[^.]*?\b(?:are|is)\s+(?:excluded|never tested|not tested)\b"
                       r"|\bno (?:test )?input (?:has|holds|contains) an? (?:exact )?tie\b", re.I)


def statement_excludes_ties(text: str) -> bool:
    """A sentence of the statement says ties are excluded, e.g. 'Exact ties between a
    norm and clip_norm are excluded from the tests.'"""
    return bool(_TIE_RULE.search(text))


@dataclass
class Probe:
    raw: Any
    expected: Any  # the reference's output, as add-case would store it
    oracle: Any  # the first oracle's output


@dataclass
class Evidence:
    input: Any
    message: str
    tie: bool = False


def output_checks(problem: Problem) -> tuple[str, ...]:
    # Inputs cannot be modified through jax.jit: the check needs the arguments back, which
    # the worker does not send.
    return tuple(c for c in problem.meta.output_checks if c != "inputs_unchanged")


def check(problem: Problem, raw: Any, got: Any, expected: Any):
    ctx = CheckContext.for_input(problem.meta, raw, got, expected, None)
    return run_checks(ctx, output_checks(problem))


class Searcher:
    """Runs candidate inputs through ``run(variant, ids, raws) -> {(k, i): Result}``."""

    def __init__(self, problem: Problem, run: Callable, stored: list[Any]):
        self.problem, self.run = problem, run
        self.fns = oracles(problem)
        module = load_module(problem.oracle_path, f"{problem.id}_invariants") if problem.meta.invariants else None
        # An input an invariant rejects is outside the problem, like one an oracle disagrees on.
        self.invariants = [getattr(module, name) for name in problem.meta.invariants]
        self.known = {canonical(problem.meta, raw) for raw in stored}

    # --------------------------------------------------------------- inputs
    def candidates(self) -> list[Any]:
        raws = []
        for s in range(SEEDS):
            raws += [raw for _, raw in generated_inputs(self.problem, PER_SEED, SEARCH_SEED + s)]
        smallest = [self._minimal(raw) for raw in raws[:PER_SEED]]
        return raws + [r for r in smallest if r is not None]

    def _minimal(self, raw: Any) -> Any:
        try:
            dims = input_dims(self.problem.meta, raw)
        except InputError:
            return None
        for dim in dims:
            raw = resized(self.problem.meta, raw, dim, max(1, self.problem.meta.dims[dim][0]))
        return raw

    def probes(self, raws: list[Any]) -> list[Probe]:
        fresh, seen = [], set(self.known)
        for raw in raws:
            try:
                check_input(self.problem.meta, raw)
            except InputError:
                continue
            key = canonical(self.problem.meta, raw)
            if key not in seen:
                seen.add(key)
                fresh.append(raw)
        if not fresh:
            return []
        ref = self.run("reference", [-1], fresh)
        out = []
        for i, raw in enumerate(fresh):
            r = ref.get((-1, i))
            if r is None or r.status != "ok":
                continue
            expected = to_plain(r.output)
            try:
                if not all(oracle_excess(self.problem, fn, raw, expected)[0] <= 1.0 for fn in self.fns.values()):
                    continue
                if not all(bool(inv(*[_copy(raw)[a] for a in self.problem.meta.entry.args])[0])
                           for inv in self.invariants):
                    continue
                oracle = next(iter(self.fns.values()))(*[_copy(raw)[a] for a in self.problem.meta.entry.args])
            except Exception:
                continue
            out.append(Probe(raw, expected, oracle))
        return sorted(out, key=self._size)

    def _size(self, probe: Probe) -> int:
        return sum(input_dims(self.problem.meta, probe.raw).values())

    # ------------------------------------------------------------- verdicts
    def differs(self, probe: Probe, result) -> str | None:
        """Why the mutant's result differs from the reference and the oracle, or None."""
        if result.status != "ok":
            return f"{result.status}: {result.error}"[:300]
        try:
            vs_ref = check(self.problem, probe.raw, result.output, probe.expected)
            vs_oracle = check(self.problem, probe.raw, result.output, probe.oracle)
        except Exception as exc:  # an output the checks cannot read is a difference
            return f"{type(exc).__name__}: {exc}"[:300]
        return vs_ref.message if vs_ref and vs_oracle else None

    def first_difference(self, variant: str, k: int, probes: list[Probe]) -> tuple[Probe, str] | None:
        if not probes:
            return None
        got = self.run(variant, [k], [p.raw for p in probes])
        for i, probe in enumerate(probes):
            why = self.differs(probe, got[(k, i)])
            if why:
                return probe, why
        return None

    # ---------------------------------------------------------------- search
    def search(self, survivors: dict[int, str]) -> dict[int, Evidence | None]:
        """Evidence for every survivor (id -> 'switched' or 'alone'); None: none found.
        Generated inputs first; for the mutants they cannot tell apart, the same inputs
        pushed to their edges (``fuzzed``): same shapes, so no new compiles."""
        probes = self.probes(self.candidates())
        found = self._search(survivors, probes)
        rest = {k: v for k, v in survivors.items() if found[k] is None}
        if rest and probes:
            found.update(self._search(rest, self.probes(fuzzed(self.problem, [p.raw for p in probes]))))
        return found

    def _search(self, survivors: dict[int, str], probes: list[Probe]) -> dict[int, Evidence | None]:
        found: dict[int, Evidence | None] = {}
        by_variant: dict[str, list[int]] = {}
        for k, variant in survivors.items():
            by_variant.setdefault(variant, []).append(k)
        for variant, ids in by_variant.items():
            got = self.run(variant, ids, [p.raw for p in probes]) if probes else {}
            for k in ids:
                hits = [(p, why) for i, p in enumerate(probes) if (why := self.differs(p, got[(k, i)]))]
                found[k] = self._evidence(variant, k, hits)
        return found

    def _evidence(self, variant: str, k: int, hits: list[tuple[Probe, str]]) -> Evidence | None:
        if not hits:
            return None
        tie = None
        for probe, why in hits[:3]:  # a real difference rarely hides behind three ties
            if not self.is_tie(variant, k, probe):
                probe, why = self.shrink(variant, k, probe, why)
                return Evidence(probe.raw, why)
            tie = tie or Evidence(probe.raw, why, tie=True)
        return tie

    def shrink(self, variant: str, k: int, probe: Probe, why: str) -> tuple[Probe, str]:
        for _ in range(SHRINK_ROUNDS):
            better = self.first_difference(variant, k, self.probes(self._shrinks(probe.raw)))
            if better is None or self.is_tie(variant, k, better[0]):
                break
            probe, why = better
        return probe, why

    def _shrinks(self, raw: Any) -> list[Any]:
        dims = input_dims(self.problem.meta, raw)
        out = []
        for dim, size in dims.items():
            lo = self.problem.meta.dims[dim][0]
            for smaller in sorted({lo, size // 2, size - 1}):
                if max(lo, 1) <= smaller < size:
                    out.append(resized(self.problem.meta, raw, dim, smaller))
        return out

    def is_tie(self, variant: str, k: int, probe: Probe) -> bool:
        rng = np.random.default_rng(SEARCH_SEED)
        moved = [m for m in (self._perturbed(probe.raw, rng) for _ in range(TIE_TRIALS)) if m is not None]
        nearby = self.probes(moved)
        return bool(nearby) and self.first_difference(variant, k, nearby) is None

    def _perturbed(self, raw: Any, rng: np.random.Generator) -> Any:
        out, moved = _copy(raw), False
        for leaf in self.problem.meta.inputs:
            if leaf.kind == "int" or (leaf.kind == "array" and "float" not in (leaf.dtype or "")):
                continue
            value = np.asarray(get_path(raw, leaf.path), dtype=np.float64)
            new = value * (1.0 + TIE_STEP * rng.uniform(-1.0, 1.0, size=value.shape))  # never two alike
            lo = -np.inf if leaf.min is None else leaf.min
            hi = np.inf if leaf.max is None else leaf.max
            new = np.clip(new, lo, hi)
            if leaf.kind == "array":
                new = new.astype(np.float32).astype(np.float64)
            moved = moved or bool(np.any(new != value))
            set_path(out, leaf.path, new.tolist() if leaf.kind == "array" else float(new))
        return out if moved else None


FUZZ_PER_INPUT = 12


def fuzzed(problem: Problem, raws: list[Any]) -> list[Any]:
    """Each input changed in one to three places, the way suites miss: a float scaled (by 0,
    -1, 0.1, 10, ...) or set to a bound, a slice of an array zeroed or set to a bound, an
    integer set to a bound or moved by one. Values stay inside the constraints; whether
    the reference and the oracles agree on the result is checked like any candidate."""
    rng = np.random.default_rng(SEARCH_SEED + 1)
    leaves = [leaf for leaf in problem.meta.inputs if leaf.kind != "array" or leaf.min is not None
              or leaf.max is not None or "float" in (leaf.dtype or "")]
    out = []
    for raw in raws:
        for _ in range(FUZZ_PER_INPUT if leaves else 0):
            new = _copy(raw)
            for _ in range(int(rng.integers(1, 4))):
                _fuzz_leaf(new, leaves[int(rng.integers(len(leaves)))], rng)
            out.append(new)
    return out


def _fuzz_leaf(raw: Any, leaf, rng: np.random.Generator) -> None:
    value = np.array(get_path(raw, leaf.path), dtype=np.float64)
    is_int = leaf.kind == "int" or (leaf.kind == "array" and "float" not in (leaf.dtype or ""))
    lo = -np.inf if leaf.min is None else leaf.min
    hi = np.inf if leaf.max is None else leaf.max
    bound = float(rng.choice([b for b in (lo, hi) if np.isfinite(b)] or [0.0]))
    where = np.ones(value.shape, dtype=bool)
    if value.ndim and rng.random() < 0.5:  # one slice along one axis
        axis = int(rng.integers(value.ndim))
        where = np.zeros(value.shape, dtype=bool)
        index: list[slice | int] = [slice(None)] * value.ndim
        index[axis] = int(rng.integers(value.shape[axis])) if value.shape[axis] else 0
        where[tuple(index)] = value.shape[axis] > 0
    move = int(rng.integers(3))
    if move == 0:
        new = np.full(value.shape, bound)
    elif is_int:
        new = value + float(rng.choice([-1.0, 1.0])) if move == 1 else np.zeros(value.shape)
    else:
        new = value * float(rng.choice([0.0, -1.0, 0.1, 0.5, 2.0, 10.0])) if move == 1 else np.zeros(value.shape)
    value = np.where(where, np.clip(new, lo, hi), value)
    if leaf.kind == "int":
        set_path(raw, leaf.path, int(value))
    elif leaf.kind == "float":
        set_path(raw, leaf.path, float(value))
    elif is_int:
        set_path(raw, leaf.path, value.astype(np.int64).tolist())
    else:
        set_path(raw, leaf.path, value.astype(np.float32).astype(np.float64).tolist())


def _copy(raw: Any) -> Any:
    import copy

    return copy.deepcopy(raw)
