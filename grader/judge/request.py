"""The request stage: what the sandbox is asked to run. Case inputs go typed and
without their expected outputs; the watched callables and the probe rule come
from the problem's requirements."""
from __future__ import annotations

import math
import random

from ..problem import Case, Problem
from ..problem.meta import Perturbation
from ..problem.inputs import input_dims, resized, typed_input
from ..sandbox.probe import LANE_AMPLITUDE
from ..sandbox.request import Request
from .submission import ParsedSubmission

# The dependence probe's perturbations (see probe_table and the child's instrument):
# a factor away from 1 on either side, a shift away from 0 on either side, and a lane
# pattern whose factors differ from lane to lane.
FACTOR_RANGES = ((0.4, 0.8), (1.25, 2.5))
SHIFT_RANGE = (0.05, 0.15)
LANE_FREQUENCY_RANGE = (0.7, 2.4)
# The passes a lengthened fori_loop runs beyond its own trip count (perturbation "passes").
EXTRA_PASSES = (1, 2, 3)


def draw_perturbation(family: Perturbation = "scale", rng: random.Random | None = None
                      ) -> tuple[float, float, float, float, float]:
    """(factor, shift, lane frequency, lane phase, extra passes), from ``rng`` (else the
    system's randomness). A "passes" perturbation lengthens the loop and scales nothing
    (factor 1); a "scale" one adds no pass."""
    rng = rng or random.SystemRandom()
    passes = float(rng.choice(EXTRA_PASSES)) if family == "passes" else 0.0
    factor = 1.0 if family == "passes" else rng.uniform(*rng.choice(FACTOR_RANGES))
    shift = rng.uniform(*SHIFT_RANGE) * rng.choice((-1.0, 1.0))
    while True:  # lanes 0 and 1 (every vmap has them when it maps two examples) differ by 0.1 or more
        frequency, phase = rng.uniform(*LANE_FREQUENCY_RANGE), rng.uniform(0.0, 2 * math.pi)
        if abs(math.cos(frequency + phase) - math.cos(phase)) * LANE_AMPLITUDE >= 0.1:
            return factor, shift, frequency, phase, passes


def measured_case(cases: list[Case]) -> Case | None:
    """The case the size measurement cycles: the first public one, else the first."""
    return next((c for c in cases if not c.hidden), cases[0]) if cases else None


def size_inputs_for(problem: Problem, cases: list[Case]) -> list[tuple[int, dict]]:
    """Two inputs that differ only in the batch dims: the first public case (else the
    first case), cycled to a small and a large batch, so that the program sizes can be
    compared."""
    meta = problem.meta
    start = measured_case(cases)
    if start is None:
        return []
    small, large = start.input, start.input
    for dim in meta.requirements.vectorized:
        lo, hi = meta.dims[dim]
        a, b = max(lo, 2), hi
        if a >= b:
            return []
        small, large = resized(meta, small, dim, a), resized(meta, large, dim, b)
    first = meta.requirements.vectorized[0]
    return [(input_dims(meta, small)[first], typed_input(meta, small)),
            (input_dims(meta, large)[first], typed_input(meta, large))]


def make_request(sub: ParsedSubmission, problem: Problem, cases: list[Case], cost: bool = False,
                 strict: bool = False) -> Request:
    """The run of ``sub`` on ``cases``; the dependence probe (which cases, which perturbation)
    is added by the pipeline from the problem's probe table."""
    meta = problem.meta
    lim = meta.limits
    req = meta.requirements
    return Request(
        source=sub.source, entry=meta.entry.name, args=meta.entry.args,
        cases=[(c.id, problem.bind(c)[0]) for c in cases],
        time_seconds=lim.time_seconds, load_seconds=lim.load_seconds, memory_mb=lim.memory_mb,
        output_kb=lim.output_kb,
        watch=tuple(dict.fromkeys((*req.calls, *req.forbid, *(n for r in req.nest for n in r)))),
        perturbed=req.perturbed, probe=bool(req.depends and req.perturbed),
        size_inputs=size_inputs_for(problem, cases) if req.vectorized else [], cost=cost,
        hidden=frozenset(c.id for c in cases if c.hidden), strict=strict)
