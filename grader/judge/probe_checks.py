"""Runtime rules judged on reruns: the dependence probe (outputs must follow the
transform's result when the judge perturbs it as drawn for this grade, exactly as
the reference's do) and the size measurement (the program must not
grow with the batch). A probe that is missing, raised, hung or was killed fails."""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from ..common.trees import get_path
from ..common.verdicts import Verdict
from ..problem import Problem, Requirements
from ..sandbox.request import RunResult
from ..sandbox.wire import Leaf
from .output_checks import compare
from .results import CheckResult

if TYPE_CHECKING:
    from .probe_table import ProbeTable
    from .verdict import Ending

# How a phase of the child ended -> the verdict and reason its missing evidence gets.
_PHASE_VERDICT = {"timeout": (Verdict.TLE, "time"), "mle": (Verdict.MLE, "memory"),
                  "ole": (Verdict.OLE, "output_size"), "crash": (Verdict.RE, "crash")}
_PHASE_WORDS = {"sizes": "measuring the program's size", "runtime": "collecting the runtime record",
                "probe": "the dependence probe", "child": "finishing the run"}


def missing_evidence(run: RunResult, phase: str, what: str, ending: "Ending | None" = None,
                     name: str | None = None) -> CheckResult:
    """A rule (``name``, else ``what``) whose evidence never came back: the verdict of
    the phase, or of the case, whose end took the evidence with it; RJ when nothing says
    why. Never a pass."""
    failed = run.phase_failures.get(phase) or run.phase_failures.get("child")
    if failed:
        verdict, reason = _PHASE_VERDICT.get(failed, (Verdict.RE, "crash"))
        where = _PHASE_WORDS.get(phase if phase in run.phase_failures else "child", phase)
        return CheckResult(name or what, False, f"the sandboxed process ended ({failed}) during {where}, so the judge "
                           f"has no {what}", verdict.value, reason)
    if ending is not None:
        return CheckResult(name or what, False, ending.consequence(what), ending.verdict.value, ending.reason)
    return CheckResult(name or what, False, f"the judge received no {what}; the requirement is not met")


MEASURED = "measured"  # the key, in ``others``, of the input the two measured programs were cycled from


def check_vectorized(run: RunResult, req: Requirements, hidden: frozenset[str] = frozenset(),
                     ending: "Ending | None" = None, others: Mapping[str, tuple] | None = None) -> list[CheckResult]:
    """Failures seen on the evidence that came back stay RJ even when a case then ended
    the process (the size measurement runs before the cases); a pass on what came back
    is no pass when the programs of the case that ended it, and of those after it, are
    unknown. ``others``: per case id (and ``MEASURED``), the sizes of the dims the rule
    is not about; programs are compared only where those agree, since a loop over such a
    dim (the coordinates of a point) is no loop over the batch."""
    if not req.vectorized:
        return []
    dims = "/".join(req.vectorized)
    if "sizes" in run.phase_failures or ("child" in run.phase_failures and not run.sizes):
        return [missing_evidence(run, "sizes", "measurement of the program at two batch sizes", ending, "vectorized")]
    sizes = run.sizes[:2]
    if len(sizes) < 2 or any(s.ops is None for s in sizes):
        why = next((s.error for s in sizes if s.error), None)
        return [CheckResult("vectorized", False, f"the program could not be measured at two sizes of {dims}"
                            + (f" (running it raised {why})" if why else "") + "; the requirement is not met")]
    small, large = sizes
    assert small.ops is not None and large.ops is not None  # checked above
    unit = "operations" if small.how != "eager" else "primitives run (it cannot be traced)"
    measured = f"{small.ops} {unit} at {dims}={small.size}, {large.ops} at {dims}={large.size}"
    if not _alike([small.ops, large.ops]):
        return [CheckResult("vectorized", False, f"the program changes with {dims} ({measured}): a Python loop over "
                            f"{dims}? Express it with a transform so that one program serves every size")]
    # The measurement is only as good as its likeness to the programs that computed the
    # answers: each case reports the size of its own, and all of them, with the measured
    # ones, must be alike (beyond what shapes alone change), compared in one unit. Sizes
    # of hidden cases decide the rule but never reach the message.
    programs = {cid: c.program for cid, c in run.cases.items() if c.status == "ok" and c.program}
    if not programs and ending is not None:
        return [missing_evidence(run, "case", "size of the programs that computed the cases", ending, "vectorized")]
    if not programs:
        return [CheckResult("vectorized", False, "no case reported the size of its program; the requirement is "
                            "not met")]
    others = others or {}
    groups: dict[tuple, dict[str, int]] = {}
    for cid, p in programs.items():
        groups.setdefault((p.how, others.get(cid)), {})[cid] = p.ops
    groups.setdefault((small.how, others.get(MEASURED)), {}).update(
        {"measured small": small.ops, "measured large": large.ops})
    for group in groups.values():
        if not _alike(list(group.values())):
            middle = sorted(group.values())[len(group) // 2]
            odd = [cid for cid, ops in group.items() if not _alike([ops, middle])]
            where = next((f"the program that computed case {cid}" for cid in odd
                          if cid not in hidden and not cid.startswith("measured")),
                         "the program that computed a hidden case" if any(cid in hidden for cid in odd)
                         else "the program measured")
            return [CheckResult("vectorized", False, f"{where} differs in size from the others where the dims "
                                f"besides {dims} agree ({measured}): it does more or less work for other sizes than "
                                f"the measurement saw. Express the work over {dims} with a transform so that one "
                                f"program serves every size")]
    if ending is not None:
        return [missing_evidence(run, "case", f"size of the programs that computed that case and the ones after it; "
                                 f"the rest do not change with {dims} ({measured})", ending, "vectorized")]
    return [CheckResult("vectorized", True, f"the program does not change with {dims} ({measured})")]


def _size_bound(size: int) -> int:
    """The largest program alike to one of ``size``: shapes alone change a program a
    little (a dimension of one is squeezed, a broadcast is added, a batching rule drops a
    transpose); a loop over the batch multiplies it."""
    return int(size * 1.25) + 10


def _alike(sizes: list[int]) -> bool:
    return not sizes or max(sizes) <= _size_bound(min(sizes))


def _leaf(tree, dotted: str):
    node = get_path(tree, tuple(dotted.split(".")), None)
    return node if isinstance(node, Leaf) else None


def check_dependence(run: RunResult, problem: Problem, table: "ProbeTable | None",
                     plan: list[tuple[int, tuple[str, ...]]], ending: "Ending | None" = None) -> list[CheckResult]:
    """``plan`` pairs each perturbation the run applied (in the request's order) with its
    index in the table and the cases rerun under it: one drawn per grade, all of them in
    ``validate``. Every one must be followed."""
    req = problem.meta.requirements
    if not req.depends or not req.perturbed:
        return []
    name = "results come from the transforms"
    source = "(".join(req.perturbed) + "(...)" + ")" * (len(req.perturbed) - 1)
    # What the probe perturbs: a loop's trip count (a few passes more), else a result.
    source = f"the trip count of {source}" if req.perturbation == "passes" else f"the result of {source}"
    if table is None or not plan or not all(ids for _, ids in plan):
        return [missing_evidence(run, "probe", "rerun under the dependence probe", ending, name)]
    if "probe" in run.phase_failures:
        return [CheckResult(name, False, f"the rerun with {source} perturbed was stopped "
                            f"({run.phase_failures['probe']}); honest code runs it like any case")]
    for applied, (drawn, ids) in enumerate(plan):
        which = f", perturbation {drawn} of the table" if len(plan) > 1 else ""
        failed = _follows(run, problem, table, applied, drawn, ids, name, source, which, ending)
        if failed:
            return [failed]
    return [CheckResult(name, True, f"every required output follows {source}")]


def _follows(run: RunResult, problem: Problem, table: "ProbeTable", applied: int, drawn: int,
             ids: tuple[str, ...], name: str, source: str, which: str,
             ending: "Ending | None" = None) -> CheckResult | None:
    """Why the outputs under one perturbation do not follow it, or None when they do."""
    req = problem.meta.requirements
    specs = {".".join(o.path): o for o in problem.meta.outputs}
    subs = {p.id: p for p in run.probes if p.perturbation == applied}
    moved = dict.fromkeys(req.depends, False)
    hidden = {c.id for c in problem.cases if c.hidden}
    for cid in ids:
        where = "a hidden case" if cid in hidden else f"case {cid}"
        sub = subs.get(cid)
        if sub is None:
            return missing_evidence(run, "probe", "rerun under the dependence probe", ending, name)
        if sub.status != "ok":
            return CheckResult(name, False, f"with {source} perturbed, the code ended with "
                               f"'{sub.status}' on {where}{which}; computed from the transform, it would simply follow")
        for dep in req.depends:
            a, want = _leaf(sub.output, dep), table.outputs[f"{cid}|{dep}"][drawn]
            if a is None or a.array.shape != want.shape or not compare(specs[dep], a.array, want)["excess"] <= 1.0:
                return CheckResult(name, False, f"'{dep}' did not follow when {source} was perturbed "
                                   f"({where}{which}): it is not computed from that result as the statement's "
                                   f"Requirements ask (by hand or around the transform, changed afterwards by more "
                                   f"than a rearrangement, or in vmap lanes that are not the examples in order)")
            moved[dep] |= table.moved[f"{cid}|{dep}"][drawn]
    still = [d for d, m in moved.items() if not m]
    if still:
        return CheckResult(name, False, f"the probe did not move {', '.join(repr(d) for d in still)} on the cases "
                           f"it reran{which}, so it cannot tell: the problem needs cases on which it moves",
                           Verdict.IE.value, "judge")
    return None
