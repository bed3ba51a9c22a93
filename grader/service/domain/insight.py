"""Class insight: what a course's learners did on an assignment, per problem, counted in
SQL from the columns a grade records (``Submission.mistake``, ``failed_case``; no report
is read): the mistakes the judge named (learners who made each, and how many of them
had an accepted Submit after it), the verdict mix, the share of learners who solved it,
Submits and time to the first AC, the first failing cases (by the label the problem's
author gave their situation, ``problem.labels``: grouped here, not in SQL), learners with
an AC over time (late apart), and the assignment's score distribution by the gradebook's
scores. A course's, each assignment in a row, is ``course_insight``'s.

It counts what the gradebook counts: the Submits that count for the assignment
(``SubmissionCredit``) of the course's learners, on its problems, graded and not IE.
Who may read it is the route's business: the course's instructors (``course_or_404``
with ``teach``), as for the scores."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

from sqlalchemy import Select, and_, case, func, select, type_coerce
from sqlalchemy.orm import Session

from . import assignments as asg
from ...problem import Problem, ProblemError, find_problem
from ...problem.corpus import misread_sentences
from ...problem.labels import case_labels
from ..core.models import Assignment, Membership, Submission, SubmissionCredit, UTCDateTime, utcnow

# The verdicts in the order a chart shows them; IE never counts (the judge's failure).
VERDICTS = ("AC", "WA", "RJ", "CE", "RE", "TLE", "MLE", "OLE")
# Buckets as [low, high) with their labels (high None: no bound).
ATTEMPTS = ((1, 2, "1"), (2, 3, "2"), (3, 4, "3"), (4, 6, "4–5"), (6, 11, "6–10"), (11, 21, "11–20"),
            (21, None, "over 20"))
MINUTE, HOUR, DAY = 60, 3600, 86400
DURATIONS = ((0, 10 * MINUTE, "under 10 min"), (10 * MINUTE, HOUR, "10–59 min"), (HOUR, DAY, "1–24 h"),
             (DAY, None, "over a day"))
FIRST_TRY = "first Submit"  # the time-to-AC bar of those whose first Submit was accepted
STEPS = (timedelta(hours=1), timedelta(hours=6), timedelta(days=1), timedelta(days=7), timedelta(days=30))
MAX_BINS = 30


@dataclass(frozen=True)
class Bar:
    label: str
    learners: int


@dataclass(frozen=True)
class Mistake:
    text: str  # the hint the judge gave, as the problem's author wrote it
    learners: int
    fixed: int  # of them, those with an accepted Submit after their first Submit that made it
    submits: int
    misreads: str | None = None  # the statement's sentence it misreads (the wrong answer's ``# misreads:``)


@dataclass(frozen=True)
class FailingCase:
    """The Submits whose first failing case had one label (``problem.labels``): the
    generator's scenario or recipe as its author named it, else the case's id."""
    label: str
    hidden: bool
    learners: int
    submits: int
    cases: tuple[str, ...]  # the ids behind the label, most Submits first


@dataclass(frozen=True)
class Tick:
    """Learners with an accepted Submit by ``until``: on time, and late besides."""
    until: datetime
    on_time: int
    late: int


@dataclass
class Timeline:
    due: datetime
    ticks: list[Tick] = field(default_factory=list)


@dataclass
class ProblemInsight:
    problem: str
    weight: float
    learners: int  # the course's learners
    attempted: int = 0  # learners with a Submit that counts
    solved: int = 0  # learners with an accepted one
    verdicts: dict[str, tuple[int, int]] = field(default_factory=dict)  # verdict: (Submits, learners)
    mistakes: list[Mistake] = field(default_factory=list)
    cases: list[FailingCase] = field(default_factory=list)  # the first failing case of each Submit
    attempts: list[Bar] = field(default_factory=list)  # Submits up to the first AC, by learners who solved it
    time_to_ac: list[Bar] = field(default_factory=list)  # from their first Submit to their first AC
    timeline: Timeline | None = None

    @property
    def solved_share(self) -> float:
        return self.solved / self.learners if self.learners else 0.0


@dataclass
class AssignmentInsight:
    assignment: Assignment
    learners: int
    possible: float
    problems: list[ProblemInsight]
    scores: list[Bar]  # learners by share of the points possible
    timeline: Timeline  # learners with every problem accepted


def counted(a: Assignment, problems: list[str]):
    """SQL (a CTE): the Submits that count for ``a`` as its scores count them."""
    learners = select(Membership.user_id).where(Membership.course_id == a.course_id, Membership.role == "learner")
    return (select(Submission.pk, Submission.user_id, Submission.problem, Submission.verdict, Submission.mistake,
                   Submission.failed_case, Submission.failed_hidden, Submission.created_at, SubmissionCredit.late)
            .join(SubmissionCredit, SubmissionCredit.submission_pk == Submission.pk)
            .where(SubmissionCredit.assignment_id == a.id, Submission.kind == "submit",
                   Submission.verdict.is_not(None), Submission.verdict != "IE", Submission.problem.in_(problems),
                   Submission.user_id.in_(learners))
            .cte("counted"))


def _first_ac(c) -> Select:
    return (select(c.c.user_id, c.c.problem, func.min(c.c.pk).label("pk")).where(c.c.verdict == "AC")
            .group_by(c.c.user_id, c.c.problem))


def verdict_mix(s: Session, c, by: dict[str, ProblemInsight]) -> None:
    rows = s.execute(select(c.c.problem, c.c.verdict, func.count(), func.count(c.c.user_id.distinct()))
                     .group_by(c.c.problem, c.c.verdict)).all()
    for pid, verdict, submits, learners in rows:
        by[pid].verdicts[verdict] = (int(submits), int(learners))
    for pid, attempted in s.execute(select(c.c.problem, func.count(c.c.user_id.distinct())).group_by(c.c.problem)):
        by[pid].attempted = int(attempted)
    for p in by.values():
        p.solved = p.verdicts.get("AC", (0, 0))[1]
        p.verdicts = {v: p.verdicts.get(v, (0, 0)) for v in VERDICTS}


def named_mistakes(s: Session, c, by: dict[str, ProblemInsight]) -> None:
    made = (select(c.c.user_id, c.c.problem, c.c.mistake, func.min(c.c.pk).label("first"),
                   func.count().label("n")).where(c.c.mistake.is_not(None))
            .group_by(c.c.user_id, c.c.problem, c.c.mistake).subquery())
    last_ac = (select(c.c.user_id, c.c.problem, func.max(c.c.pk).label("pk")).where(c.c.verdict == "AC")
               .group_by(c.c.user_id, c.c.problem).subquery())
    fixed = func.sum(case((last_ac.c.pk > made.c.first, 1), else_=0))
    rows = s.execute(select(made.c.problem, made.c.mistake, func.count(), fixed, func.sum(made.c.n))
                     .outerjoin(last_ac, and_(last_ac.c.user_id == made.c.user_id,
                                              last_ac.c.problem == made.c.problem))
                     .group_by(made.c.problem, made.c.mistake)).all()
    for pid, text, learners, fixed_n, submits in rows:
        by[pid].mistakes.append(Mistake(text, int(learners), int(fixed_n or 0), int(submits or 0),
                                        _misreads(pid).get(text)))
    for p in by.values():
        p.mistakes.sort(key=lambda m: (-m.learners, -m.submits, m.text))


# The catalogue is read once per server run (a change on disk is seen after a restart); only
# a problem found is kept: one whose suite is still being drawn is found once it is drawn.
_found: dict[str, Problem] = {}
_sentences: dict[str, dict[str, str]] = {}


def _problem(problem: str) -> Problem | None:
    if problem not in _found:
        try:
            _found[problem] = find_problem(problem)
        except (ProblemError, OSError):
            return None  # the problem left the catalogue: its Submits still count
    return _found[problem]


def _misreads(problem: str) -> dict[str, str]:
    found = _problem(problem)
    try:
        if found is not None and problem not in _sentences:
            _sentences[problem] = misread_sentences(found)
    except OSError:
        pass
    return _sentences.get(problem, {})


def _labels(problem: str, ids: set[str]) -> dict[str, str]:
    found = _problem(problem)
    try:
        return case_labels(found, ids) if found is not None else {i: i for i in ids}
    except (ProblemError, OSError):
        return {i: i for i in ids}


def _cases(s: Session, c, by: dict[str, ProblemInsight]) -> None:
    """Grouped by label, which SQL cannot know: a learner is counted once per label however
    many of its cases their Submits failed first, so the rows come per learner."""
    rows = s.execute(select(c.c.problem, c.c.failed_case, c.c.failed_hidden, c.c.user_id, func.count())
                     .where(c.c.failed_case.is_not(None))
                     .group_by(c.c.problem, c.c.failed_case, c.c.failed_hidden, c.c.user_id)).all()
    for pid, p in by.items():
        mine = [r for r in rows if r[0] == pid]
        if not mine:
            continue  # no need to load the problem
        labels = _labels(pid, {r[1] for r in mine})
        groups: dict[tuple[str, bool], list] = {}
        for _, case_id, hidden, user, n in mine:
            groups.setdefault((labels[case_id], bool(hidden)), []).append((case_id, user, int(n)))
        for (label, hidden), got in groups.items():
            per_id: dict[str, int] = {}
            for case_id, _, n in got:
                per_id[case_id] = per_id.get(case_id, 0) + n
            ids = tuple(sorted(per_id, key=lambda i: (-per_id[i], i)))
            p.cases.append(FailingCase(label, hidden, len({u for _, u, _ in got}), sum(per_id.values()), ids))
        p.cases.sort(key=lambda x: (-x.learners, -x.submits, x.label))


@dataclass(frozen=True)
class Solve:
    """One learner's way to their first AC on one problem."""
    user_id: int
    problem: str
    attempts: int  # Submits up to and including it
    first_at: datetime  # their first Submit
    ac_at: datetime
    late: bool


def _solves(s: Session, c) -> list[Solve]:
    # The first AC's pk beside every Submit of the same learner and problem (a window, one
    # pass): a join of the Submits with their first ACs made SQLite compare every pair.
    first_pk = func.min(case((c.c.verdict == "AC", c.c.pk))).over(partition_by=(c.c.user_id, c.c.problem))
    w = select(c.c.user_id, c.c.problem, c.c.pk, c.c.created_at, c.c.late, first_pk.label("first_pk")).subquery()
    at_ac = w.c.pk == w.c.first_pk
    when = UTCDateTime()
    rows = s.execute(select(w.c.user_id, w.c.problem, func.count(), type_coerce(func.min(w.c.created_at), when),
                            type_coerce(func.max(case((at_ac, w.c.created_at))), when),
                            func.max(case((and_(at_ac, w.c.late), 1), else_=0)))
                     .where(w.c.first_pk.is_not(None), w.c.pk <= w.c.first_pk)
                     .group_by(w.c.user_id, w.c.problem)).all()
    return [Solve(int(u), p, int(n), _utc(t0), _utc(t1), bool(late)) for u, p, n, t0, t1, late in rows]


def _utc(value) -> datetime:
    """A time an aggregate returned: SQLite may give the stored text back."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return UTCDateTime().process_result_value(value, None)  # type: ignore[return-value]


def _within(v: float, lo: float, hi: float | None) -> bool:
    return v >= lo and (hi is None or v < hi)


def bars(values: list[float], buckets) -> list[Bar]:
    """How many of ``values`` fall in each bucket of ``buckets``."""
    return [Bar(label, sum(1 for v in values if _within(v, lo, hi))) for lo, hi, label in buckets]


def _time_bucket(x: Solve) -> int | None:
    """The bar of ``time_bars`` a solve falls in: 0 for a first Submit accepted."""
    if x.attempts == 1:
        return 0
    seconds = (x.ac_at - x.first_at).total_seconds()
    return next((i + 1 for i, (lo, hi, _) in enumerate(DURATIONS) if _within(seconds, lo, hi)), None)


def time_bars(solves: list[Solve]) -> list[Bar]:
    """Learners by the time from their first Submit to their first AC; those whose first
    Submit was accepted apart (however quickly a second one came, it was a second)."""
    found = [_time_bucket(x) for x in solves]
    labels = [FIRST_TRY, *(label for _, _, label in DURATIONS)]
    return [Bar(label, found.count(i)) for i, label in enumerate(labels)]


def timeline(a: Assignment, firsts: list[tuple[datetime, bool]], now: datetime) -> Timeline:
    """Learners with an AC by the end of each step from the opening, on time and late
    apart: steps of an hour, six hours, a day, a week or a month, the smallest that
    keeps to ``MAX_BINS``, up to the close of the late window or the last AC, never
    past ``now``."""
    end = max([a.late_until or a.due_at, *(t for t, _ in firsts)])
    end = max(min(end, now), a.opens_at)
    span = end - a.opens_at
    step = next((st for st in STEPS if span / st <= MAX_BINS), STEPS[-1])
    out = Timeline(a.due_at)
    until = a.opens_at
    while True:
        until = until + step
        done = [late for t, late in firsts if t <= until]
        out.ticks.append(Tick(until, sum(1 for late in done if not late), sum(1 for late in done if late)))
        if until >= end:
            return out


def _score_bucket(share: float) -> int:
    return 10 if share >= 1 - 1e-9 else min(9, int(share * 10 + 1e-9))


def score_bars(shares: list[float]) -> list[Bar]:
    """Learners by share of the points possible: tenths, and full marks apart."""
    labels = [f"{10 * i}–{10 * i + 9}%" for i in range(10)] + ["100%"]
    counts = [0] * 11
    for share in shares:
        counts[_score_bucket(share)] += 1
    return [Bar(label, n) for label, n in zip(labels, counts)]


# The distributions whose bars link to the Submits of the learners behind them.
Distribution = Literal["attempts", "time", "score"]
DISTRIBUTIONS: tuple[Distribution, ...] = ("attempts", "time", "score")


def learners_behind(s: Session, a: Assignment, problem: str | None, chart: Distribution, bar: int) -> set[int]:
    """The learners one bar of a distribution counts: ``attempts`` and ``time`` for
    ``problem`` (``ATTEMPTS``; ``time_bars``' order), ``score`` for the assignment
    (``score_bars``' order), as ``assignment_insight`` counts them."""
    if chart == "score":
        problems, rows = asg.scores(s, a)
        possible = sum(p.weight for p in problems)
        return {r.user_id for r in rows if _score_bucket(r.points / possible if possible else 0.0) == bar}
    if problem is None or (chart == "attempts" and not 0 <= bar < len(ATTEMPTS)):
        return set()
    solves = _solves(s, counted(a, [problem]))
    if chart == "attempts":
        lo, hi, _ = ATTEMPTS[bar]
        return {x.user_id for x in solves if _within(x.attempts, lo, hi)}
    return {x.user_id for x in solves if _time_bucket(x) == bar}


def assignment_insight(s: Session, a: Assignment, now: datetime | None = None) -> AssignmentInsight:
    now = now or utcnow()
    problems, rows = asg.scores(s, a)  # the gradebook's figures: one score for one piece of work
    learners = len(rows)
    by = {p.problem: ProblemInsight(p.problem, p.weight, learners) for p in problems}
    c = counted(a, list(by))
    verdict_mix(s, c, by)
    named_mistakes(s, c, by)
    _cases(s, c, by)
    solves = _solves(s, c)
    for p in by.values():
        mine = [x for x in solves if x.problem == p.problem]
        p.attempts = bars([x.attempts for x in mine], ATTEMPTS)
        p.time_to_ac = time_bars(mine)
        p.timeline = timeline(a, [(x.ac_at, x.late) for x in mine], now)
    everything: dict[int, list[Solve]] = {}
    for x in solves:
        everything.setdefault(x.user_id, []).append(x)
    # A learner has every problem accepted at their last first AC; late if any of them was.
    complete = [(max(x.ac_at for x in mine), any(x.late for x in mine))
                for mine in everything.values() if len(mine) == len(by)]
    possible = sum(p.weight for p in problems)
    return AssignmentInsight(a, learners, possible, list(by.values()),
                             score_bars([r.points / possible if possible else 0.0 for r in rows]),
                             timeline(a, complete, now))
