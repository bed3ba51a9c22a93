"""``grader validate --mutants``: how strong is a problem's test suite?

Every first-order mutant of the reference (``ops``) is graded on the public
and on the hidden cases by the trusted worker (``worker``), with the judge's
own output checks. A mutant no hidden case kills is searched for a valid input on which
it differs from the oracle (``search``): found, it is a *hole* in the suite
(with the shrunk input, ready for ``grader add-case``); not found, it is reported as
equivalent, unless a public case kills it (then it is a hole the search could not fill).
Killed mutants count the hidden cases that catch them; one or two is a warning. Scores
are kills over the mutants that are not equivalent.

Fail closed: the reference must pass every case in the worker first, and a mutant whose
run raised, crashed or timed out fails that case (the reference ran there).
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

import numpy as np

from ...common.trees import get_path
from ...problem import Problem
from ..context import Finding
from .client import WorkerClient
from .ops import Mutant, build_schema
from .sites import EPSILON_KINDS, NAMED_FAMILIES
from .search import Evidence, Searcher, check, statement_excludes_ties

WEAK = 2  # a killed mutant that at most this many hidden cases catch is a warning
# A mutant with a program of its own stops running once this many hidden cases (and a public
# one, if any does) catch it: its count is then "at least", and no warning needs more.
EARLY = WEAK + 1
MUTATION_CHECKS = ("mutants", "suite hole", "weakly killed")


@dataclass
class MutantResult:
    mutant: Mutant
    variant: str  # switched | alone
    public_kills: int = 0
    hidden_kills: int = 0
    status: str = "killed"  # killed | equivalent | tie | hole
    evidence: Evidence | None = None


@dataclass
class Analysis:
    problem: str
    outcomes: list[MutantResult] = field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    @property
    def scored(self) -> int:
        return len(self.outcomes) - self.count("equivalent") - self.count("tie")

    def killed_by(self, visibility: str) -> int:
        attr = "public_kills" if visibility == "public" else "hidden_kills"
        return sum(1 for o in self.outcomes if getattr(o, attr) > 0)

    def score(self, visibility: str) -> float:
        return self.killed_by(visibility) / self.scored if self.scored else 1.0

    @property
    def weak(self) -> list[MutantResult]:
        return [o for o in self.outcomes if o.status == "killed" and o.hidden_kills <= WEAK]


def run_timeout(problem: Problem, variant: str) -> float:
    """Seconds the worker gets for one result: the problem's limit with room for compiles on
    a shared machine (the switched program is the largest); a mutant that needs more fails."""
    limit = problem.meta.limits.time_seconds
    return (10 if variant == "switched" else 3) * limit + 30


class MutationSession:
    """One mutation worker, used for one problem at a time; ``validate --mutants`` holds one
    per problem it proves at once."""

    def __init__(self, log=lambda _m: None):
        self.client = WorkerClient()
        self.analyses: list[Analysis] = []
        self.log = log

    def __enter__(self) -> "MutationSession":
        return self

    def __exit__(self, *exc) -> None:
        self.client.close()

    def check(self, problem: Problem) -> list[Finding]:
        analysis = self.analyse(problem)
        self.analyses.append(analysis)
        return findings(analysis)

    def analyse(self, problem: Problem, search: bool = True, among: frozenset[int] | None = None) -> Analysis:
        """Every mutant graded on ``problem``'s cases; without ``search``, a mutant no hidden
        case kills is left at that (no hole or equivalence is decided): what a comparison of
        two suites' kills needs. ``among`` asks only whether the hidden cases kill each of
        those mutants (no search): the others are left out, the public cases are not run,
        and a mutant run alone meets no further shape of input once one kills it."""
        start = time.monotonic()
        analysis = Analysis(problem.id)
        try:
            self._analyse(problem, analysis, search and among is None, among)
        except (RuntimeError, OSError) as exc:
            analysis.error = str(exc)
        analysis.seconds = time.monotonic() - start
        return analysis

    def _run(self, problem: Problem, variant: str, ids: list[int], raws: list) -> dict:
        got = self.client.run(problem, variant, ids, raws, run_timeout(problem, variant))
        if variant == "switched":
            # A new input shape can leave a site out of the switch (the program then ran the
            # original there): those mutants' results are void and come from their own programs.
            void = [k for k in ids if k in self.client.static_ids]
            if void:
                got.update(self.client.run(problem, "alone", void, raws, run_timeout(problem, "alone")))
        return got

    def _analyse(self, problem: Problem, analysis: Analysis, search: bool = True,
                 among: frozenset[int] | None = None) -> None:
        source = problem.reference_path.read_text(encoding="utf-8")
        mutants, schema = build_schema(source)
        self.client.load(problem, source, schema)
        cases, early = problem.cases, EARLY
        if among is not None:
            mutants, cases, early = [m for m in mutants if m.id in among], [c for c in cases if c.hidden], 1
        raws = [c.input for c in cases]

        def grade(variant: str, ids: list[int], idx: list[int]) -> tuple[dict, float]:
            """Pass (True) or fail per (mutant, case index), and the worker's seconds."""
            got = self._run(problem, variant, ids, [raws[i] for i in idx])
            out = {(k, idx[j]): r.status == "ok" and check(problem, raws[idx[j]], r.output, cases[idx[j]].expected)
                   is None for (k, j), r in got.items()}
            return out, sum(r.ms for r in got.values()) / 1000

        everything = list(range(len(cases)))
        ref, ref_seconds = grade("reference", [-1], everything)
        broken = [cases[i] for i in everything if not ref[(-1, i)]]
        if broken:
            raise RuntimeError(f"the reference fails {broken[0].visibility}/{broken[0].id} in the mutation worker")
        groups = input_groups(problem, cases, self.client.reference_mode)
        per_program = ref_seconds / len(groups)  # one compile per group dominates
        # The switched program must be the reference when no mutant is on; it pays when it
        # costs less than compiling the mutants it carries one by one.
        base, sw_seconds = grade("switched", [-1], groups[0][:1])  # one compile, to price the program
        carried = [m.id for m in mutants if m.id not in self.client.static_ids] if all(base.values()) else []
        use_switched = bool(carried) and sw_seconds * len(groups) < \
            len(carried) * per_program * min(len(groups), early)
        if use_switched:
            rest = [i for i in everything if i != groups[0][0]]
            use_switched = all(grade("switched", [-1], rest)[0].values()) if rest else True
        carried = [k for k in carried if k not in self.client.static_ids] if use_switched else []
        passed = grade("switched", carried, everything)[0] if carried else {}
        alone = [m.id for m in mutants if m.id not in carried]
        self.log(f"  {len(mutants)} mutants: {len(carried)} on the switched program, {len(alone)} alone")
        analysis.outcomes = [MutantResult(m, "switched" if m.id in carried else "alone") for m in mutants]
        by_id = {o.mutant.id: o for o in analysis.outcomes}
        for (k, i), ok in passed.items():
            by_id[k].hidden_kills += not ok and cases[i].hidden
            by_id[k].public_kills += not ok and not cases[i].hidden
        public_left = sum(not c.hidden for c in cases)
        for g in groups:  # group by group: a mutant run alone stops once enough cases catch it
            todo = [k for k in alone if by_id[k].hidden_kills < early or (public_left and not by_id[k].public_kills)]
            if todo:
                for (k, i), ok in grade("alone", todo, g)[0].items():
                    by_id[k].hidden_kills += not ok and cases[i].hidden
                    by_id[k].public_kills += not ok and not cases[i].hidden
            public_left -= sum(not cases[i].hidden for i in g)
        survivors = {o.mutant.id: o.variant for o in analysis.outcomes if o.hidden_kills == 0}
        if not survivors or not search:
            return
        if sum(v == "switched" for v in survivors.values()) * per_program < sw_seconds:
            survivors = dict.fromkeys(survivors, "alone")  # new shapes: cheaper to compile them one by one
        searcher = Searcher(problem, lambda v, ids, rs: self._run(problem, v, ids, rs), raws)
        evidence = searcher.search(survivors)
        ties_excluded = statement_excludes_ties(problem.statement_path.read_text(encoding="utf-8"))
        for o in analysis.outcomes:
            if o.hidden_kills:
                continue
            o.evidence = evidence.get(o.mutant.id)
            if o.evidence is None:
                o.status = "hole" if o.public_kills else "equivalent"
            elif o.evidence.tie and ties_excluded and not o.public_kills:
                o.status = "tie"
            else:
                o.status = "hole"


def input_groups(problem: Problem, cases: list, mode: str) -> list[list[int]]:
    """Indices into ``cases`` (some of ``problem``'s) grouped by what one compiled program
    serves: the array shapes, and the integer arguments' values where the reference needs
    them static. Groups with a public case come first, then the largest."""
    keys: dict = {}
    for i, case in enumerate(cases):
        key = []
        for leaf in problem.meta.inputs:
            value = get_path(case.input, leaf.path)
            key.append(np.shape(value) if leaf.kind == "array" else value if leaf.kind == "int" and mode != "jit"
                       else None)
        keys.setdefault(repr(key), []).append(i)
    public = {i for i, c in enumerate(cases) if not c.hidden}
    return sorted(keys.values(), key=lambda g: (not public & set(g), -len(g)))


def print_table(con, rows: list[tuple[list[str], bool]], seconds: float) -> None:
    """The analysis's table on a rich console: one row per problem (``table_rows``), those
    of kept proofs (``True``: not analysed this time) marked so, and the time in all."""
    from rich.table import Table

    table = Table(title="Mutation analysis (scores: kills over mutants that are not equivalent)")
    for i, name in enumerate(COLUMNS):
        table.add_column(name, justify="left" if i == 0 else "right")
    for row, kept in rows:
        table.add_row(*row[:-1], "kept") if kept else table.add_row(*row)
    con.print(table, width=max(con.width, 150))
    analysed = sum(float(row[-1]) for row, kept in rows if not kept and row[-1])
    con.print(f"mutation analysis: {analysed:.1f} s summed over the problems analysed; "
              f"{seconds:.1f} s in all")


def print_finding(con, f: Finding) -> None:
    """One validate finding on a rich console, as ``validate`` always printed it; the
    mutation findings unwrapped and without markup, so a suggested input stays valid JSON."""
    mark = {"pass": "[green]PASS[/green]", "fail": "[red]FAIL[/red]", "warn": "[yellow]WARN[/yellow]"}[f.status]
    if f.check in MUTATION_CHECKS:
        con.print(f"  {mark} {f.check}: ", end="")
        con.print(f.message, markup=False, highlight=False, soft_wrap=True)
    else:
        con.print(f"  {mark} {f.check}: {f.message}")


def findings(a: Analysis) -> list[Finding]:
    if a.error:
        return [Finding("mutants", "fail", a.error)]
    out = [Finding("mutants", "pass", f"{len(a.outcomes)} mutants: the public cases kill {a.killed_by('public')} "
                   f"({a.score('public'):.0%}), the hidden cases {a.killed_by('hidden')} ({a.score('hidden'):.0%}); "
                   f"{a.count('equivalent')} equivalent, {a.count('tie')} on ties only; hidden cases per killed "
                   f"mutant: {_histogram(a)}; {a.seconds:.1f} s")]
    for title, kinds in (("the guards learners add", EPSILON_KINDS), ("the mistakes at the edges", NAMED_FAMILIES)):
        families = guard_families(a, kinds)
        if families:
            out.append(Finding("mutants", "pass", f"{title}: " + "; ".join(
                f"{kind} {killed}/{total} killed by hidden cases" + (f" ({same} equivalent)" if same else "")
                for kind, (total, killed, same) in families.items())))
    for o in a.outcomes:
        m = o.mutant
        if o.status == "hole":
            where = f"caught only by {o.public_kills} public case(s), no hidden case" if o.public_kills else \
                "survives every case"
            if o.evidence is None:
                how = "no generated input catches it either; write a hidden case that does"
            else:
                tie = " (an exact tie, which the statement does not exclude)" if o.evidence.tie else ""
                how = (f"differs{tie} on this input ({o.evidence.message}); add it with grader add-case "
                       f"{a.problem} INPUT.json --hidden:\n      {json.dumps(o.evidence.input)}")
            out.append(Finding("suite hole", "fail", f"{m.describe()} [{m.kind}] {where}; {how}"))
        elif o.status == "tie" and o.evidence is not None:  # "tie" is given only with evidence
            out.append(Finding("mutants", "pass", f"differs only on an exact tie the statement excludes: "
                               f"{m.describe()}; input {json.dumps(o.evidence.input)}"))
        elif o.status == "equivalent":
            out.append(Finding("mutants", "pass", f"equivalent (no distinguishing input found): {m.describe()}"))
    for o in a.weak:
        out.append(Finding("weakly killed", "warn", f"{o.mutant.describe()} [{o.mutant.kind}] is caught by "
                           f"{o.hidden_kills} hidden case(s) only" + (f" (and {o.public_kills} public)"
                                                                      if o.public_kills else "")))
    return out


def guard_families(a: Analysis, kinds: tuple[str, ...] = EPSILON_KINDS) -> dict[str, tuple[int, int, int]]:
    """Per family of ``kinds`` that the reference has: its mutants, how many the hidden
    cases kill, how many are equivalent."""
    out = {}
    for kind in kinds:
        mine = [o for o in a.outcomes if o.mutant.kind == kind]
        if mine:
            out[kind] = (len(mine), sum(1 for o in mine if o.hidden_kills > 0),
                         sum(1 for o in mine if o.status == "equivalent"))
    return out


def _histogram(a: Analysis) -> str:
    killed = [o.hidden_kills for o in a.outcomes if o.status == "killed"]
    counts = [sum(1 for n in killed if n == 1), sum(1 for n in killed if n == 2), sum(1 for n in killed if n > 2)]
    return f"1 for {counts[0]}, 2 for {counts[1]}, {EARLY} or more for {counts[2]}"


COLUMNS = ("problem", "mutants", "killed public", "killed hidden", "equivalent", "ties", "holes", "weak",
           "score public", "score hidden", "seconds")


def table_rows(analyses: list[Analysis]) -> list[list[str]]:
    rows = []
    for a in analyses:
        if a.error:
            rows.append([a.problem, "error", *[""] * (len(COLUMNS) - 3), f"{a.seconds:.1f}"])
            continue
        rows.append([a.problem, str(len(a.outcomes)), str(a.killed_by("public")), str(a.killed_by("hidden")),
                     str(a.count("equivalent")), str(a.count("tie")), str(a.count("hole")), str(len(a.weak)),
                     f"{a.score('public'):.0%}", f"{a.score('hidden'):.0%}", f"{a.seconds:.1f}"])
    return rows
