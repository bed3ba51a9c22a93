"""Class insight over HTTP, for a course's instructors: an assignment's figures per
problem (the mistakes the judge named, the verdict mix, the share who solved it, Submits
and time to the first AC, the first failing cases, learners with an AC over time) and
its score distribution, as JSON or as one CSV of the same figures (a row per bar); a
course's assignments in a row each (``/courses/{slug}/insight``). For
every member, their own progress in a course (``/progress``), and nobody else's."""
from __future__ import annotations

from datetime import datetime
from typing import Literal

from fastapi import APIRouter, HTTPException, Path, Response
from pydantic import BaseModel, Field

from ..domain import assignments as asg
from ..domain import course_insight, insight, insight_cache
from ..domain.progress import class_solved, own_progress
from ..core.csv_io import Cell, write_csv
from .deps import ContextDep, course_or_404, CurrentInstructor, CurrentUser
from .schemas import errors

router = APIRouter(tags=["insight"])
SLUG = Path(max_length=64)


class BarOut(BaseModel):
    label: str
    learners: int


class VerdictOut(BaseModel):
    verdict: str
    submits: int
    learners: int = Field(description="learners with at least one Submit of this verdict")


class MistakeOut(BaseModel):
    text: str = Field(description="the mistake the judge named (the hint its report gave)")
    learners: int = Field(description="learners with a Submit that made it")
    fixed: int = Field(description="of them, those with an accepted Submit after their first that made it")
    submits: int
    misreads: str | None = Field(None, description="the sentence of the problem's statement this mistake misreads, "
                                                  "as its Markdown writes it (null when its author named none)")


class CaseOut(BaseModel):
    label: str = Field(description="the situation as the problem's author labelled it: the generator's scenario or "
                                   "recipe, else the case's id")
    cases: list[str] = Field(description="the ids of the cases behind the label, most Submits first")
    hidden: bool
    learners: int = Field(description="learners with a Submit whose first failing case had this label")
    submits: int


class TickOut(BaseModel):
    until: datetime
    on_time: int = Field(description="learners with an accepted Submit by then, the first of them on time")
    late: int = Field(description="the same, the first accepted Submit late")


class TimelineOut(BaseModel):
    due: datetime
    ticks: list[TickOut]


class ProblemInsightOut(BaseModel):
    problem: str
    weight: float
    learners: int = Field(description="the course's learners")
    attempted: int = Field(description="learners with a Submit that counts for the assignment")
    solved: int = Field(description="learners with an accepted one")
    solved_share: float
    verdicts: list[VerdictOut] = Field(description="IE is left out: the judge's failure, not the learner's")
    mistakes: list[MistakeOut] = Field(description="most learners first")
    failing_cases: list[CaseOut] = Field(description="the first failing case of each Submit, most learners first")
    attempts_to_ac: list[BarOut] = Field(description="learners who solved it, by Submits up to the first AC")
    time_to_ac: list[BarOut] = Field(description="learners who solved it, by the time from their first Submit")
    accepted_over_time: TimelineOut


class InsightOut(BaseModel):
    course: str
    assignment: str
    title: str
    learners: int
    points_possible: float
    problems: list[ProblemInsightOut]
    scores: list[BarOut] = Field(description="learners by share of the points possible, as the gradebook scores")
    accepted_over_time: TimelineOut = Field(description="learners with every problem accepted")
    counted_at: datetime = Field(description="when these figures were counted")
    fresh: bool = Field(description="false: grades (or learners, extensions, the assignment) changed since they were "
                                    "counted, and newer figures are being counted: ask again in a moment")


def _bars(bars: list[insight.Bar]) -> list[BarOut]:
    return [BarOut(label=b.label, learners=b.learners) for b in bars]


def _timeline(t: insight.Timeline) -> TimelineOut:
    return TimelineOut(due=t.due, ticks=[TickOut(until=x.until, on_time=x.on_time, late=x.late) for x in t.ticks])


def _problem(p: insight.ProblemInsight) -> ProblemInsightOut:
    assert p.timeline is not None  # assignment_insight draws every problem's
    return ProblemInsightOut(
        problem=p.problem, weight=p.weight, learners=p.learners, attempted=p.attempted, solved=p.solved,
        solved_share=p.solved_share,
        verdicts=[VerdictOut(verdict=v, submits=n, learners=who) for v, (n, who) in p.verdicts.items()],
        mistakes=[MistakeOut(text=m.text, learners=m.learners, fixed=m.fixed, submits=m.submits,
                             misreads=m.misreads) for m in p.mistakes],
        failing_cases=[CaseOut(label=c.label, cases=list(c.cases), hidden=c.hidden, learners=c.learners,
                               submits=c.submits)
                       for c in p.cases],
        attempts_to_ac=_bars(p.attempts), time_to_ac=_bars(p.time_to_ac), accepted_over_time=_timeline(p.timeline))


def insight_out(course_slug: str, figures: insight_cache.Figures[insight.AssignmentInsight]) -> InsightOut:
    ins, a = figures.value, figures.value.assignment
    return InsightOut(course=course_slug, assignment=a.slug, title=a.title, learners=ins.learners,
                      counted_at=figures.counted_at, fresh=figures.fresh,
                      points_possible=ins.possible, problems=[_problem(p) for p in ins.problems],
                      scores=_bars(ins.scores), accepted_over_time=_timeline(ins.timeline))


CSV_COLUMNS = ["figure", "problem", "key", "hidden", "learners", "submits", "fixed", "late", "cases", "misreads"]


def _rows(out: InsightOut) -> list[list[Cell]]:
    """One row per bar of every chart: ``figure`` names the chart, ``key`` the bar; a
    failing case's ``key`` is its label, ``cases`` the ids behind it (space apart); a
    mistake's ``misreads`` the statement's sentence it misreads."""
    rows: list[list[Cell]] = []
    for p in out.problems:
        rows.append(["solved", p.problem, "", "", p.solved, "", "", ""])
        rows.append(["attempted", p.problem, "", "", p.attempted, "", "", ""])
        rows += [["verdict", p.problem, v.verdict, "", v.learners, v.submits, "", ""] for v in p.verdicts]
        rows += [["mistake", p.problem, m.text, "", m.learners, m.submits, m.fixed, "", "", m.misreads or ""]
                 for m in p.mistakes]
        rows += [["failing_case", p.problem, c.label, "yes" if c.hidden else "no", c.learners, c.submits, "", "",
                  " ".join(c.cases)] for c in p.failing_cases]
        rows += [["attempts_to_ac", p.problem, b.label, "", b.learners, "", "", ""] for b in p.attempts_to_ac]
        rows += [["time_to_ac", p.problem, b.label, "", b.learners, "", "", ""] for b in p.time_to_ac]
        rows += [["accepted_by", p.problem, t.until.isoformat(), "", t.on_time, "", "", t.late]
                 for t in p.accepted_over_time.ticks]
    rows += [["score", "", b.label, "", b.learners, "", "", ""] for b in out.scores]
    rows += [["all_accepted_by", "", t.until.isoformat(), "", t.on_time, "", "", t.late]
             for t in out.accepted_over_time.ticks]
    return [row + [""] * (len(CSV_COLUMNS) - len(row)) for row in rows]


@router.get("/courses/{slug}/assignments/{assignment}/insight", response_model=InsightOut,
            responses={200: {"content": {"text/csv": {}}}, **errors(401, 403, 404, 422)})
def read(who: CurrentInstructor, c: ContextDep, slug: str = SLUG, assignment: str = Path(max_length=64),
         format: Literal["json", "csv"] = "json"):
    """What the course's learners did on the assignment, per problem, counted from the
    Submits that count for it (those its scores count). ``format=csv``: the same figures,
    a row per bar (``figure``, ``problem``, ``key``, then the counts)."""
    with c.db.read() as s:
        course = course_or_404(s, who, slug, teach=True)
        try:
            a = asg.find(s, course, assignment)
        except LookupError:
            raise HTTPException(404, "no such assignment") from None
        out = insight_out(course.slug, insight_cache.assignment_insight(s, a))
    if format == "csv":
        return Response(write_csv(CSV_COLUMNS, _rows(out)), media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{slug}-{assignment}-insight.csv"'})
    return out


class SolvedOut(BaseModel):
    problem: str
    solved: int = Field(description="learners with an accepted Submit that counts for the assignment")
    attempted: int
    solved_share: float


class TopMistakeOut(BaseModel):
    problem: str
    text: str
    learners: int
    submits: int


class AssignmentRowOut(BaseModel):
    assignment: str
    title: str
    due_at: datetime
    learners: int
    problems: list[SolvedOut]
    mistakes: list[TopMistakeOut] = Field(description="the mistakes most of its learners made, at most three")


class CourseInsightOut(BaseModel):
    course: str
    learners: int
    assignments: list[AssignmentRowOut] = Field(description="by due time")
    mistakes: list[TopMistakeOut] = Field(description="across the course's assignments, most learners first, "
                                                      "at most ten")
    counted_at: datetime = Field(description="when these figures were counted")
    fresh: bool = Field(description="false: grades (or learners, extensions, the assignment) changed since they were "
                                    "counted, and newer figures are being counted: ask again in a moment")


def _top(m: course_insight.ProblemMistake) -> TopMistakeOut:
    return TopMistakeOut(problem=m.problem, text=m.text, learners=m.learners, submits=m.submits)


def course_insight_out(course_slug: str,
                       figures: insight_cache.Figures[course_insight.CourseInsight]) -> CourseInsightOut:
    ins = figures.value
    return CourseInsightOut(course=course_slug, learners=ins.learners, mistakes=[_top(m) for m in ins.mistakes],
                            counted_at=figures.counted_at, fresh=figures.fresh,
                            assignments=[AssignmentRowOut(
                                assignment=x.assignment.slug, title=x.assignment.title, due_at=x.assignment.due_at,
                                learners=x.learners, mistakes=[_top(m) for m in x.mistakes],
                                problems=[SolvedOut(problem=p.problem, solved=p.solved, attempted=p.attempted,
                                                    solved_share=p.solved_share) for p in x.problems])
                                for x in ins.assignments])


COURSE_CSV_COLUMNS = ["figure", "assignment", "problem", "key", "learners", "submits", "attempted"]


@router.get("/courses/{slug}/insight", response_model=CourseInsightOut,
            responses={200: {"content": {"text/csv": {}}}, **errors(401, 403, 404, 422)})
def read_course(who: CurrentInstructor, c: ContextDep, slug: str = SLUG, format: Literal["json", "csv"] = "json"):
    """Per assignment of the course, its learners, who solved each problem and the mistakes
    most of them made; and the commonest mistakes across the course. ``format=csv``: a row
    per figure (``solved`` per problem, ``mistake`` per assignment, ``course_mistake``)."""
    with c.db.read() as s:
        course = course_or_404(s, who, slug, teach=True)
        out = course_insight_out(course.slug, insight_cache.course_insight(s, course))
    if format == "json":
        return out
    rows: list[list[Cell]] = []
    for a in out.assignments:
        rows += [["solved", a.assignment, p.problem, "", p.solved, "", p.attempted] for p in a.problems]
        rows += [["mistake", a.assignment, m.problem, m.text, m.learners, m.submits, ""] for m in a.mistakes]
    rows += [["course_mistake", "", m.problem, m.text, m.learners, m.submits, ""] for m in out.mistakes]
    return Response(write_csv(COURSE_CSV_COLUMNS, rows), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{slug}-insight.csv"'})


class OwnProblemOut(BaseModel):
    problem: str
    submits: int = Field(description="your Submits that count for an assignment of the course")
    solved: bool
    attempts_to_ac: int | None = Field(description="your Submits up to and including your first AC")
    fixed: list[str] = Field(description="mistakes the judge named in your Submits, an accepted one coming after")
    not_fixed: list[str] = Field(description="mistakes named in your Submits with no accepted one after them yet")
    class_solved_share: float | None = Field(
        description="the share of the course's learners with an accepted Submit that counts for it; null unless "
                    "the course's instructors chose to show it")
    class_solved: int | None = Field(description="how many of the course's learners solved it; null as above")
    class_learners: int | None = Field(description="the course's learners; null as above")


@router.get("/courses/{slug}/progress", response_model=list[OwnProblemOut], responses=errors(401, 404, 422))
def progress(who: CurrentUser, c: ContextDep, slug: str = SLUG):
    """Your own progress in the course: per problem of its assignments, what you solved,
    your Submits, and the mistakes you fixed. Of anyone else, only the class's solve rate
    per problem, when the course's instructors chose to show it."""
    with c.db.read() as s:
        course = course_or_404(s, who, slug, teach=False)
        rows = own_progress(s, course, who.user_id)
        shown = class_solved(s, course, [p.problem for p in rows]) if course.show_class_progress else {}
    out = []
    for p in rows:
        cls = shown.get(p.problem)
        out.append(OwnProblemOut(problem=p.problem, submits=p.submits, solved=p.solved,
                                 attempts_to_ac=p.attempts_to_ac, fixed=p.fixed, not_fixed=p.open,
                                 class_solved_share=cls.share if cls else None,
                                 class_solved=cls.solved if cls else None,
                                 class_learners=cls.learners if cls else None))
    return out
