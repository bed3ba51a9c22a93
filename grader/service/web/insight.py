"""The class insight page of an assignment, for its course's instructors: per problem,
the mistakes the judge named, the verdict mix, learners with an AC over time against the
due time, Submits and time to the first AC, the first failing cases by the label their
author gave them (hidden ones too: instructors only); for the assignment, the score
distribution. Each chart is SVG drawn here, its bars linking to the Submits behind them,
with its figures as a table under it; the API's ``/insight`` gives the same figures as
JSON and CSV. A course's page puts its assignments in a row each, linked to theirs. And a
member's own progress in a course: what they solved, their Submits, the mistakes they fixed,
and the class's solve rate per problem when the course's instructors chose to show it."""
from __future__ import annotations

from urllib.parse import urlencode

from fastapi import APIRouter, Request

from ..domain import assignments as asg
from ..domain import courses as co
from ..domain import insight, insight_cache
from ..domain.progress import class_solved, own_progress
from .charts import column_chart, hchart, histogram
from .pages import ctx, PageError, render, ViewerDep
from .problem_view import all_views, sentence_html
from .related import titles

router = APIRouter(include_in_schema=False)


def submissions_link(ref: str, problem: str | None = None, **narrowed: str) -> str:
    """The submissions list, narrowed to the Submits counting for ``ref`` (and more)."""
    return "/submissions?" + urlencode({**({"problem": problem} if problem else {}), "assignment": ref, **narrowed})


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def problem_charts(ref: str, p: insight.ProblemInsight, start) -> dict:
    """The charts of one problem, by name."""
    key = p.problem
    verdicts = [(v, [(n, f"v-{v}", f"{_plural(n, 'Submit')}")], f"{n} ({_plural(who, 'learner')})",
                 submissions_link(ref, key, verdict=v) if n else None,
                 f"{v}: {_plural(n, 'Submit')} by {_plural(who, 'learner')}")
                for v, (n, who) in p.verdicts.items() if n]  # the table lists every verdict
    mistakes = [(m.text, [(m.fixed, "fixed", f"{m.fixed} fixed it"), (m.learners - m.fixed, "made", "not fixed yet")],
                 f"{m.learners} ({m.fixed} fixed)", submissions_link(ref, key, mistake=m.text),
                 f"{_plural(m.learners, 'learner')} made it, {m.fixed} fixed it: {m.text}") for m in p.mistakes]
    # A bar links to the Submits of every case behind it; the table links each case too.
    cases = [(f"{c.label} ({'hidden' if c.hidden else 'public'})", [(c.learners, "hidden" if c.hidden else "public",
                                                                      _plural(c.learners, "learner"))],
              f"{c.learners} ({_plural(c.submits, 'Submit')})", submissions_link(ref, key, case=" ".join(c.cases)),
              f"{c.label}: first failing case of {_plural(c.submits, 'Submit')} by {_plural(c.learners, 'learner')}")
             for c in p.cases]

    assert p.timeline is not None
    return {
        "verdicts": hchart(f"{key}-verdicts", "Submits by verdict", verdicts),
        "mistakes": hchart(f"{key}-mistakes", "Learners who made each named mistake, and those who fixed it",
                           mistakes, most=p.learners),
        "cases": hchart(f"{key}-cases", "Learners by the first case their Submits failed", cases[:10]),
        "attempts": histogram(f"{key}-attempts", "Learners who solved it, by Submits up to the first AC",
                              [(b.label, b.learners) for b in p.attempts],
                              [submissions_link(ref, key, bar=f"attempts:{i}") for i in range(len(p.attempts))]),
        "time": histogram(f"{key}-time", "Learners who solved it, by the time from their first Submit to the first AC",
                          [(b.label, b.learners) for b in p.time_to_ac],
                          [submissions_link(ref, key, bar=f"time:{i}") for i in range(len(p.time_to_ac))]),
        "timeline": column_chart(f"{key}-timeline", "Learners with an accepted Submit over time",
                                 p.timeline.ticks, p.timeline.due, start, p.learners,
                                 submissions_link(ref, key, verdict="AC")),
    }


@router.get("/courses/{slug}/assignments/{assignment}/insight")
def insight_page(request: Request, slug: str, assignment: str, v: ViewerDep):
    with ctx(request).db.read() as s:
        try:
            course = co.course_for(s, v.who, slug, teach=True)
            a = asg.find(s, course, assignment)
        except LookupError:
            raise PageError(404, "No such assignment in a course you teach.") from None
        figures = insight_cache.assignment_insight(s, a)
    ins = figures.value
    ref = f"{course.slug}/{a.slug}"
    charts = {p.problem: problem_charts(ref, p, a.opens_at) for p in ins.problems}
    scores = histogram("scores", "Learners by share of the points possible",
                       [(b.label, b.learners) for b in ins.scores],
                       [submissions_link(ref, bar=f"score:{i}") for i in range(len(ins.scores))])
    everything = column_chart("all-timeline", "Learners with every problem accepted, over time", ins.timeline.ticks,
                              ins.timeline.due, a.opens_at, ins.learners, None)
    return render(request, "insight.html", viewer=v, course=course, a=a, ins=ins, figures=figures, charts=charts,
                  scores=scores,
                  everything=everything, titles=titles(all_views()), sentence=sentence_html,
                  link=lambda problem, **narrowed: submissions_link(ref, problem, **narrowed))


@router.get("/courses/{slug}/insight")
def course_insight_page(request: Request, slug: str, v: ViewerDep):
    """An assignment a row: who solved each problem, its commonest mistakes; and the
    course's commonest mistakes."""
    with ctx(request).db.read() as s:
        try:
            course = co.course_for(s, v.who, slug, teach=True)
        except LookupError:
            raise PageError(404, "No such course that you teach.") from None
        figures = insight_cache.course_insight(s, course)
    return render(request, "course_insight.html", viewer=v, course=course, ins=figures.value, figures=figures,
                  titles=titles(all_views()))


@router.get("/courses/{slug}/progress")
def progress_page(request: Request, slug: str, v: ViewerDep):
    """A member's own progress in the course (nobody else's but, when its instructors
    chose to show it, the share of the class who solved each problem)."""
    with ctx(request).db.read() as s:
        try:
            course = co.course_for(s, v.who, slug, teach=False)
        except LookupError:
            raise PageError(404, "No such course of yours.") from None
        rows = own_progress(s, course, v.who.user_id)
        shown = class_solved(s, course, [p.problem for p in rows]) if course.show_class_progress else None
    return render(request, "progress.html", viewer=v, course=course, rows=rows, shown=shown,
                  titles=titles(all_views()))
