"""Validate checks on the oracles: each agrees with every stored expected output,
they agree with each other, and every declared invariant holds on every case."""
from __future__ import annotations

import numpy as np

from ..common.trees import dotted, get_path
from ..judge.output_checks import compare
from ..problem import Problem, ProblemError
from ..problem.modules import load_module, oracles
from .cases import oracle_excess
from .context import Validation, Finding

ORACLE_AGREEMENT = 1e-3  # oracles (float64) must agree with each other to this fraction of a tolerance


def check_oracles(ctx: Validation) -> list[Finding]:
    p = ctx.problem
    try:
        fns = oracles(p)
    except ProblemError as exc:
        return [Finding("oracles", "fail", str(exc))]
    out: list[Finding] = []
    for name, fn in fns.items():
        worst, worst_case = 0.0, ""
        failed = False
        for case in p.cases:
            if case.expected is None:
                continue
            try:
                excess, where = oracle_excess(p, fn, case.input, case.expected)
            except Exception as exc:
                out.append(Finding(f"oracle {name}", "fail", f"{case.visibility}/{case.id}: raised "
                                                             f"{type(exc).__name__}: {exc}"))
                failed = True
                break
            if not excess <= 1.0:
                out.append(Finding(f"oracle {name}", "fail", f"{case.visibility}/{case.id}: disagrees with the stored "
                                   f"expected output on '{where}' ({excess:.2f}x the tolerance)"))
                failed = True
            if excess > worst:
                worst, worst_case = excess, case.id
        ctx.oracle_worst[name] = worst
        if not failed:
            out.append(Finding(f"oracle {name}", "pass", f"agrees on all {len(p.cases)} cases; largest error "
                               f"{worst:.3f} of the tolerance ({worst_case or '-'})"))
    out += _oracles_agree(p, fns)
    out += _invariants(p)
    return out


def _oracles_agree(p: Problem, fns: dict) -> list[Finding]:
    names = list(fns)
    if len(names) < 2:
        return []
    first = names[0]
    for case in p.cases:
        results = {}
        for name in names:
            try:
                results[name] = _call(p, fns[name], case.input)
            except Exception as exc:  # author code: any failure is a finding, never a crash of validate
                return [Finding("oracles agree", "fail", f"{case.visibility}/{case.id}: oracle '{name}' raised "
                                f"{type(exc).__name__}: {exc}")]
        for other in names[1:]:
            for spec in p.meta.outputs:
                where = f"{case.visibility}/{case.id}: oracles '{first}' and '{other}'"
                try:
                    a = np.asarray(get_path(results[first], spec.path), dtype=np.float64)
                    b = np.asarray(get_path(results[other], spec.path), dtype=np.float64)
                    excess = compare(spec, b, a)["excess"] if a.shape == b.shape else float("inf")
                except Exception as exc:
                    return [Finding("oracles agree", "fail", f"{where} cannot be compared on "
                                    f"'{dotted(spec.path)}': {type(exc).__name__}: {exc}")]
                if not excess <= ORACLE_AGREEMENT:
                    return [Finding("oracles agree", "fail", f"{where} differ on '{dotted(spec.path)}' "
                                    f"({excess:.2g}x the tolerance)")]
    return [Finding("oracles agree", "pass", f"{', '.join(names)} agree within {ORACLE_AGREEMENT:g} of the "
                    f"tolerance on every case")]


def _call(p: Problem, fn, raw_input):
    import copy

    args = copy.deepcopy(raw_input)
    return fn(*[args[a] for a in p.meta.entry.args])


def _invariants(p: Problem) -> list[Finding]:
    if not p.meta.invariants:
        return []
    module = load_module(p.oracle_path, f"{p.id}_invariants")  # loaded once already by oracles(p)
    out = []
    for name in p.meta.invariants:
        fn = getattr(module, name, None)
        if not callable(fn):
            out.append(Finding(f"invariant {name}", "fail", f"oracle.py defines no function '{name}'"))
            continue
        for case in p.cases:
            try:
                ok, message = _call(p, fn, case.input)
                ok = bool(ok)
            except Exception as exc:  # raising, or not returning (ok, message), fails the invariant
                ok, message = False, f"raised {type(exc).__name__}: {exc}"
            if not ok:
                out.append(Finding(f"invariant {name}", "fail", f"{case.visibility}/{case.id}: {message}"))
                break
        else:
            out.append(Finding(f"invariant {name}", "pass", f"holds on all {len(p.cases)} cases"))
    return out
