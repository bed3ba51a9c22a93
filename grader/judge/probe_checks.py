"""Runtime rules judged on reruns: the dependence probe (outputs must follow the
transform's result when the judge scales it by a factor drawn for this grade,
exactly as the reference's do) and the vectorisation probe (the program must not
grow with the batch). A probe that is missing, raised, hung or was killed fails."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..common.trees import get_path
from ..common.verdicts import Verdict
from ..problem import Problem, Requirements
from ..sandbox.request import RunResult
from ..sandbox.wire import Leaf
from .output_checks import compare
from .results import CheckResult

if TYPE_CHECKING:
    from .probe_table import ProbeTable

# How a phase of the child ended -> the verdict and reason its missing evidence gets.
_PHASE_VERDICT = {"timeout": (Verdict.TLE, "time"), "mle": (Verdict.MLE, "memory"),
                  "ole": (Verdict.OLE, "output_size"), "crash": (Verdict.RE, "crash")}
_PHASE_WORDS = {"sizes": "measuring the program's size", "runtime": "collecting the runtime record",
                "probe": "the dependence probe", "child": "finishing the run"}


def missing_evidence(run: RunResult, phase: str, what: str) -> CheckResult:
    """A rule whose evidence never came back: the resource verdict of the phase that
    failed, or RJ when nothing says why."""
    failed = run.phase_failures.get(phase) or run.phase_failures.get("child")
    if failed:
        verdict, reason = _PHASE_VERDICT.get(failed, (Verdict.RE, "crash"))
        where = _PHASE_WORDS.get(phase if phase in run.phase_failures else "child", phase)
        return CheckResult(what, False, f"the sandboxed process ended ({failed}) during {where}, so the judge has no "
                           f"{what}", verdict.value, reason)
    return CheckResult(what, False, f"the judge received no {what}; the requirement is not met")


def check_vectorized(run: RunResult, req: Requirements) -> list[CheckResult]:
    if not req.vectorized:
        return []
    dims = "/".join(req.vectorized)
    if "sizes" in run.phase_failures or ("child" in run.phase_failures and not run.sizes):
        return [missing_evidence(run, "sizes", "measurement of the program at two batch sizes")]
    sizes = run.sizes[:2]
    if len(sizes) < 2 or any(s.get("eqns") is None or s.get("size") is None for s in sizes):
        why = next((s.get("error") for s in sizes if s.get("error")), None)
        return [CheckResult("vectorized", False, f"the program could not be measured at two sizes of {dims}"
                            + (f" (running it raised {why})" if why else "") + "; the requirement is not met")]
    small, large = sizes
    unit = "operations" if small.get("how") != "eager" else "primitives run (it cannot be traced)"
    ok = large["eqns"] <= small["eqns"]
    measured = f"{small['eqns']} {unit} at {dims}={small['size']}, {large['eqns']} at {dims}={large['size']}"
    return [CheckResult("vectorized", ok, f"the program does not grow with {dims} ({measured})" if ok else
                        f"the program grows with {dims} ({measured}): a Python loop over {dims}? "
                        f"Express it with a transform so that one program serves every size")]


def _leaf(tree, dotted: str):
    node = get_path(tree, tuple(dotted.split(".")), None)
    return node if isinstance(node, Leaf) else None


def check_dependence(run: RunResult, problem: Problem, table: "ProbeTable | None", factor: int,
                     probe_ids: tuple[str, ...]) -> list[CheckResult]:
    req = problem.meta.requirements
    if not req.depends or not req.poison:
        return []
    name = "results come from the transforms"
    source = "(".join(req.poison) + "(...)" + ")" * (len(req.poison) - 1)
    if table is None or not probe_ids:
        return [missing_evidence(run, "probe", "rerun under the dependence probe")]
    if "probe" in run.phase_failures:
        return [CheckResult(name, False, f"the rerun with the result of {source} rescaled was stopped "
                            f"({run.phase_failures['probe']}); honest code runs it like any case")]
    specs = {".".join(o.path): o for o in problem.meta.outputs}
    subs = {p.id: p for p in run.probes if p.factor == 0}
    moved = dict.fromkeys(req.depends, False)
    hidden = {c.id for c in problem.cases if c.hidden}
    for cid in probe_ids:
        where = "a hidden case" if cid in hidden else f"case {cid}"
        sub = subs.get(cid)
        if sub is None:
            return [missing_evidence(run, "probe", "rerun under the dependence probe")]
        if sub.status != "ok":
            return [CheckResult(name, False, f"with the result of {source} rescaled, the code ended with "
                                f"'{sub.status}' on {where}; computed from the transform, it would simply follow")]
        for dep in req.depends:
            a, want = _leaf(sub.output, dep), table.outputs[f"{cid}|{dep}"][factor]
            if a is None or a.array.shape != want.shape or not compare(specs[dep], a.array, want)["excess"] <= 1.0:
                return [CheckResult(name, False, f"'{dep}' did not follow when the result of {source} was rescaled "
                                    f"({where}): the output is computed some other way, and the transform call "
                                    f"is a decoy")]
            moved[dep] |= table.moved[f"{cid}|{dep}"][factor]
    still = [d for d, m in moved.items() if not m]
    if still:
        return [CheckResult(name, False, f"the probe did not move {', '.join(repr(d) for d in still)} on the cases "
                            f"it reran, so it cannot tell: the problem needs cases on which it moves",
                            Verdict.IE.value, "judge")]
    return [CheckResult(name, True, f"every required output follows the result of {source}")]
