"""Problems as a learner may see them: statement, worked examples (the public
cases), limits and requirements; the editorial after an accepted Submit. Hidden cases
are counted, never shown."""
from __future__ import annotations

import dataclasses

from fastapi import APIRouter, HTTPException, Path

from ...problem import NAME_RE, Problem, ProblemError, all_problem_ids, find_problem, load_problem, problem_folder
from ...problem.catalogue import content_hash, suite_in_use
from ...problem.suite import hidden_count
from ...judge.contract import statement_text
from ..domain.assignments import counts_for
from ..web.editorial import LOCKED, document, may_read
from .deps import ContextDep, CurrentUser
from .schemas import CountsFor, EditorialOut, Example, Limits, ProblemDetail, ProblemSummary, errors

router = APIRouter(tags=["problems"])


def load(problem_id: str) -> Problem:
    if not NAME_RE.match(problem_id) or problem_id not in all_problem_ids():
        raise HTTPException(404, f"no such problem {problem_id!r}")
    try:
        return readable(problem_id)
    except ProblemError as exc:
        raise HTTPException(500, f"problem {problem_id!r} is broken: {exc.detail}") from None


def readable(problem_id: str) -> Problem:
    """The problem to read (statement, public cases, counts): as it grades, or, on a server
    whose suite for it is still being drawn (or could not be), as shipped: reading it
    needs none of its hidden cases."""
    try:
        return find_problem(problem_id)
    except ProblemError:
        if suite_in_use() is None:
            raise
        return load_problem(problem_folder(problem_id))


def summary(p: Problem) -> ProblemSummary:
    return ProblemSummary(id=p.id, title=p.meta.title, difficulty=p.meta.difficulty, tags=list(p.meta.tags),
                          public_cases=len(p.public_cases()), hidden_cases=hidden_count(p))


@router.get("/problems", response_model=list[ProblemSummary], responses=errors(401))
def problems(who: CurrentUser):
    out = []
    for pid in all_problem_ids():
        try:
            out.append(summary(readable(pid)))
        except ProblemError:
            continue  # a broken problem is the authors' business (grader validate), not the learners'
    return out


@router.get("/problems/{problem_id}", response_model=ProblemDetail, responses=errors(401, 404, 422))
def problem(who: CurrentUser, c: ContextDep, problem_id: str = Path(max_length=64)):
    p = load(problem_id)
    with c.db.read() as s:
        counts = [CountsFor(course=x.course.slug, assignment=x.assignment.slug, title=x.assignment.title,
                            due_at=x.window.due_at, late=x.late) for x in counts_for(s, who.user_id, problem_id)]
    statement = statement_text(p)
    req = dataclasses.asdict(p.meta.requirements)
    outputs = [{"path": ".".join(o.path), "dtype": o.dtype, "shape": list(o.shape), "atol": o.atol,
                "rtol": o.rtol, "container": o.container} for o in p.meta.outputs]
    return ProblemDetail(**summary(p).model_dump(), statement=statement,
                         entry={"name": p.meta.entry.name, "args": list(p.meta.entry.args)},
                         limits=Limits(**dataclasses.asdict(p.meta.limits)), requirements=req, outputs=outputs,
                         examples=[Example(id=c.id, input=c.input, expected=c.expected) for c in p.public_cases()],
                         problem_version=content_hash(p), counts_for=counts)


@router.get("/problems/{problem_id}/editorial", response_model=EditorialOut, responses=errors(401, 403, 404, 422))
def editorial(who: CurrentUser, c: ContextDep, problem_id: str = Path(max_length=64)):
    """The editorial: 403 until the caller has an accepted Submit on the problem
    (instructors may always read it); 404 when the problem shows none."""
    try:
        doc = document(problem_id)
    except ProblemError as exc:
        raise HTTPException(500, f"problem {problem_id!r} is broken: {exc.detail}") from None
    if doc is None:
        raise HTTPException(404, f"no such problem {problem_id!r}")
    if doc.empty:
        raise HTTPException(404, f"problem {problem_id!r} has no editorial")
    if not may_read(c.db, who, problem_id):
        raise HTTPException(403, LOCKED)
    return EditorialOut(problem=doc.problem, title=doc.title, markdown=doc.markdown, html=doc.html,
                        reference=doc.reference)
