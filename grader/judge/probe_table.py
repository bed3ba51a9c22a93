"""The reference's answers under the dependence probe, computed once per problem
version and kept in the judge's cache (never readable by a child).

The probe perturbs what a required transform returns (a positive factor, different
per lane inside a vmap) and the arguments a gradient differentiates (a shift); see
the child's ``perturb``. A table holds, for a few cases (public first) and a fixed set
of perturbations of the problem (``table_perturbations``: the same for the shipped suite
and every drawn one), the reference's outputs under each and whether they moved at all.
A grade draws one perturbation at random from the table, and reruns the cases on which
every required output moves under it; the submission's outputs must then match the
reference's. No child can read the table: it lives outside every sandbox.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import random
import tempfile
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from .. import __version__
from ..common.trees import get_path
from ..problem import Case, Problem, ProblemError
from ..problem.catalogue import content_hash
from ..sandbox.wire import Leaf
from .output_checks import compare
from .request import draw_perturbation, make_request
from .submission import load_submission
from .tables import table_dir, take_shipped

if TYPE_CHECKING:
    from ..sandbox.host import Sandbox

PER_TABLE = 16  # perturbations per table
CANDIDATES = 10  # cases per table, public ones first
PER_GRADE = 3  # at most this many cases are rerun in one grade


@dataclass
class ProbeTable:
    perturbations: list[list[float]]  # (factor, shift, lane frequency, lane phase, extra passes)
    cases: list[str]
    outputs: dict[str, np.ndarray]  # "case|leaf" -> the reference's values, one row per perturbation
    moved: dict[str, list[bool]]  # "case|leaf" -> per perturbation: differs from the answer beyond tolerance

    def choose(self, graded: set[str], depends: tuple[str, ...], rng: random.Random) -> tuple[int, tuple[str, ...]]:
        """A perturbation at random, and graded cases on which every required output moves
        under it (public first); the one that covers most outputs if none covers all."""
        best: tuple[int, int, tuple[str, ...]] = (-1, 0, ())
        order = list(range(len(self.perturbations)))
        rng.shuffle(order)
        for k in order:
            covered, ids = self.cases_for(k, graded, depends)
            if covered == len(depends):
                return k, ids
            if covered > best[0]:
                best = (covered, k, ids)
        return best[1], best[2]

    def plan(self, graded: set[str], depends: tuple[str, ...], every: bool = False,
             rng: random.Random | None = None) -> list[tuple[int, tuple[str, ...]]]:
        """What one grade reruns: ``(perturbation index, case ids)`` pairs, one drawn by
        ``choose`` (from the system's randomness unless ``rng`` is given), or with
        ``every`` all that cover every output (``validate``'s proof)."""
        return (self.every(graded, depends) if every else []) or \
            [self.choose(graded, depends, rng or random.SystemRandom())]

    def case_ids(self, plan: list[tuple[int, tuple[str, ...]]]) -> tuple[str, ...]:
        """The cases a plan reruns, each once (every perturbation reruns all of them)."""
        return tuple(dict.fromkeys(cid for _, chosen in plan for cid in chosen))

    def drawn(self, plan: list[tuple[int, tuple[str, ...]]]) -> tuple[tuple[float, ...], ...]:
        """The perturbations a plan applies, in its order (the request's)."""
        return tuple(tuple(self.perturbations[k]) for k, _ in plan)

    def every(self, graded: set[str], depends: tuple[str, ...]) -> list[tuple[int, tuple[str, ...]]]:
        """Every perturbation ``choose`` could return as covering all required outputs, each with
        its cases (``validate`` probes files that must be accepted under all of them)."""
        plan = []
        for k in range(len(self.perturbations)):
            covered, ids = self.cases_for(k, graded, depends)
            if covered == len(depends):
                plan.append((k, ids))
        return plan

    def cases_for(self, k: int, graded: set[str], depends: tuple[str, ...]) -> tuple[int, tuple[str, ...]]:
        """The graded cases to rerun under perturbation ``k``, and how many required outputs
        move on them."""
        cases = [c for c in self.cases if c in graded]
        chosen: list[str] = []
        for dep in depends:
            if any(self.moved[f"{c}|{dep}"][k] for c in chosen):
                continue
            hit = next((c for c in cases if self.moved[f"{c}|{dep}"][k]), None)
            if hit is not None:
                chosen.append(hit)
        covered = sum(any(self.moved[f"{c}|{d}"][k] for c in chosen) for d in depends)
        extra = [c for c in cases if c not in chosen][:max(0, min(2, len(cases)) - len(chosen))]
        return covered, tuple(chosen + extra)[:PER_GRADE]


FORMAT = 5  # 1 held a factor alone, 2 no extra passes, 3 called the perturbations "factors", 4 random ones


def path(problem: Problem):
    """Where ``problem``'s table is kept (``tables.table_dir``)."""
    return table_dir(problem, "probe") / f"{problem.id}-{content_hash(problem)}-{__version__}-f{FORMAT}.npz"


def load(problem: Problem) -> ProbeTable | None:
    """The kept table (or the shipped one, copied into place), or None (then it is
    rebuilt) when the file is missing or in any shape but this format's: a cache never
    stops a grade."""
    where = path(problem)
    if not where.exists():
        take_shipped(problem, "probe", where)
    try:
        with np.load(where, allow_pickle=False) as data:
            meta = json.loads(bytes(data["meta"]).decode())
            outputs = {key: data[f"o{i}"] for i, key in enumerate(meta["keys"])}
            return ProbeTable(meta["perturbations"], meta["cases"], outputs, meta["moved"])
    except (OSError, KeyError, ValueError, TypeError):
        return None


def _save(problem: Problem, table: ProbeTable) -> None:
    keys = list(table.outputs)
    meta = json.dumps({"perturbations": table.perturbations, "cases": table.cases, "keys": keys, "moved": table.moved})
    buf = io.BytesIO()
    np.savez_compressed(buf, allow_pickle=False, meta=np.frombuffer(meta.encode(), dtype=np.uint8),
                        **{f"o{i}": table.outputs[k] for i, k in enumerate(keys)})
    where = path(problem)
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=where.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(buf.getvalue())
        os.replace(tmp, where)
    except OSError:
        pass  # a read-only cache only costs speed: the table is rebuilt next time


def table_perturbations(problem: Problem) -> list[list[float]]:
    """The perturbations of every table of ``problem``: drawn from a seed of its id, its
    reference and its requirements, not from its cases, so that a table built from a drawn
    suite holds the very perturbations ``validate`` proved the accepted corpus against
    (a perturbation no validation tried could refuse an honest solution)."""
    req = problem.meta.requirements
    seed = hashlib.sha256("\n".join([problem.id, problem.reference_path.read_text(encoding="utf-8"),
                                      repr((req.perturbation, req.depends, req.perturbed))]).encode())
    rng = random.Random(seed.digest())
    return [list(draw_perturbation(req.perturbation, rng)) for _ in range(PER_TABLE)]


def build(problem: Problem, sandbox: "Sandbox") -> ProbeTable:
    """Run the reference with the probe on, every candidate case under every perturbation."""
    req = problem.meta.requirements
    ordered = [c for c in problem.cases if not c.hidden] + [c for c in problem.cases if c.hidden]
    candidates: list[Case] = ordered[:CANDIDATES]
    perturbations = table_perturbations(problem)
    ref = load_submission(problem.reference_path)
    request = replace(make_request(ref, problem, candidates), size_inputs=[],
                      probe_ids=tuple(c.id for c in candidates),
                      probe_perturbations=tuple(tuple(p) for p in perturbations))
    run = sandbox.run(request)
    bad = run.judge_error or (None if run.complete else "it did not finish") or next(
        (f"case {cid} ended with {c.status}" for cid, c in run.cases.items() if c.status != "ok"), None)
    if bad:
        raise ProblemError(problem.reference_path, f"cannot be run under the dependence probe: {bad}")
    specs = {".".join(o.path): o for o in problem.meta.outputs}
    outputs: dict[str, list] = {}
    moved: dict[str, list[bool]] = {}
    for case in candidates:
        for dep in req.depends:
            key = f"{case.id}|{dep}"
            want = np.asarray(get_path(case.expected, tuple(dep.split("."))), dtype=np.float64)
            rows, flags = [], []
            for k in range(len(perturbations)):
                probe = next((p for p in run.probes
                              if p.id == case.id and p.perturbation == k and p.status == "ok"), None)
                leaf = get_path(probe.output, tuple(dep.split(".")), None) if probe else None
                if not isinstance(leaf, Leaf):
                    raise ProblemError(problem.reference_path, f"gave no '{dep}' under the probe on case {case.id}")
                value = leaf.array.astype(np.float64)
                rows.append(value)
                flags.append(value.shape != want.shape or compare(specs[dep], value, want)["excess"] > 1.0)
            outputs[key], moved[key] = rows, flags
    table = ProbeTable(perturbations, [c.id for c in candidates], {k: np.stack(v) for k, v in outputs.items()}, moved)
    _save(problem, table)
    return table


def get(problem: Problem, sandbox: "Sandbox") -> ProbeTable:
    return load(problem) or build(problem, sandbox)
