"""A problem's editorial: ``editorial.md`` and, when ``problem.toml`` says
``[editorial] show_reference = true``, ``reference.py``. It opens to a learner once a
Submit of theirs on the problem is accepted (what "solved" means on the problem list),
and to instructors always. The page ``/problems/ID/editorial`` and the API's
``GET /api/v1/problems/ID/editorial`` both answer from here."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fastapi import APIRouter, Request
from sqlalchemy import select

from ...problem import NAME_RE, ProblemError, all_problem_ids, load_problem, problem_folder
from ..domain.accounts import Principal
from ..core.models import Submission
from .pages import ctx, PageError, render, Viewer, ViewerDep
from .folder_cache import FolderCache
from .problem_view import statement_html

router = APIRouter(include_in_schema=False)

LOCKED = "solve it first: the editorial opens after an accepted Submit"


@dataclass(frozen=True)
class Editorial:
    problem: str
    title: str  # the problem's
    markdown: str | None  # editorial.md; None when the problem has none
    html: str | None
    reference: str | None  # reference.py, only when the author shows it

    @property
    def empty(self) -> bool:
        return self.markdown is None and self.reference is None

    @property
    def heading(self) -> str:
        first = (self.markdown or "").split("\n", 1)[0]
        return first[2:].strip() if first.startswith("# ") and first[2:].strip() else f"Editorial: {self.title}"


def _read(path: Path) -> str | None:
    # An unreadable file is shown as absent: `grader validate` is where authors hear of it.
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _build(pid: str, folder: Path) -> Editorial:
    p = load_problem(folder, with_cases=False)
    text = _read(p.editorial_path)
    return Editorial(pid, p.meta.title, text, statement_html(text) if text is not None else None,
                     _read(p.reference_path) if p.meta.show_reference else None)


_KEPT: FolderCache[Editorial] = FolderCache(("problem.toml", "editorial.md", "reference.py"))


def document(pid: str) -> Editorial | None:
    """The editorial of ``pid`` (``empty`` when there is nothing to show), None for an id
    that is not in the catalogue, ProblemError for a broken problem. Kept until one of
    the files it reads changes."""
    if not NAME_RE.match(pid) or pid not in all_problem_ids():
        return None
    return _KEPT.get(pid, problem_folder(pid), _build)


def solved(db, user_id: int, pid: str) -> bool:
    """A Submit of the user's on the problem was accepted (a rejudge in progress keeps
    the verdict it had)."""
    q = (select(Submission.pk).where(Submission.user_id == user_id, Submission.problem == pid,
                                     Submission.kind == "submit", Submission.verdict == "AC").limit(1))
    with db.read() as s:
        return s.scalar(q) is not None


def may_read(db, who: Principal, pid: str) -> bool:
    return who.instructor or solved(db, who.user_id, pid)


def editorial_open(pid: str, v: Viewer, status: str) -> bool:
    """For the problem page, which has the viewer's status on it already (``solved``:
    an accepted Submit): whether to link the editorial. No query of its own."""
    if not (v.instructor or status == "solved"):
        return False
    try:
        doc = document(pid)
    except ProblemError:
        return False
    return doc is not None and not doc.empty


@router.get("/problems/{pid}/editorial")
def editorial_page(request: Request, pid: str, v: ViewerDep):
    try:
        doc = document(pid)
    except ProblemError:
        raise PageError(500, "This problem cannot be loaded (grader validate names what is wrong with it).") from None
    if doc is None:
        raise PageError(404, "No such problem.")
    if doc.empty:
        raise PageError(404, "This problem has no editorial.")
    if not may_read(ctx(request).db, v.who, pid):
        return render(request, "editorial.html", 403, viewer=v, doc=doc, locked=True)
    return render(request, "editorial.html", viewer=v, doc=doc, locked=False)
