"""How problems relate to one another, for the problem page: the ones to try next (most
shared tags, then the closest difficulty) and the previous and next ones in catalogue
order (the problem list's default order); and the names pages show for problem ids.
Pure functions over the ``ProblemView`` objects of ``problem_view.all_views()``."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...problem.meta import DIFFICULTIES
from .problem_view import ProblemView

SIMILAR_SHOWN = 4
# A difficulty the judge does not know (it validates them; a stale cache might not)
# sorts after the known ones rather than failing the page.
RANK: dict[str, int] = {d: i for i, d in enumerate(DIFFICULTIES)}


def difficulty_rank(difficulty: str) -> int:
    return RANK.get(difficulty, len(RANK))


@dataclass(frozen=True)
class Entry:
    """Another problem as a link: its name, difficulty and the viewer's status on it."""
    id: str
    title: str
    difficulty: str
    status: str  # solved | tried | new
    shared: tuple[str, ...] = ()  # the tags it shares with the problem on the page, generic ones left out


@dataclass(frozen=True)
class Related:
    similar: tuple[Entry, ...]
    previous: Entry | None
    next: Entry | None


def generic_tags(views: Sequence[ProblemView]) -> frozenset[str]:
    """Tags every problem carries ("jax"): sharing one says nothing. With a single
    problem nothing is generic, as there is nothing to compare with."""
    if len(views) < 2:
        return frozenset()
    common = set(views[0].tags)
    for v in views[1:]:
        common &= set(v.tags)
    return frozenset(common)


def _entry(v: ProblemView, statuses: Mapping[str, str], shared: tuple[str, ...] = ()) -> Entry:
    return Entry(v.id, v.title, v.difficulty, statuses.get(v.id, "new"), shared)


def similar(views: Sequence[ProblemView], p: ProblemView, statuses: Mapping[str, str],
            limit: int = SIMILAR_SHOWN) -> tuple[Entry, ...]:
    """Up to ``limit`` other problems that share a non-generic tag with ``p``: most shared
    tags first, then the closest difficulty, then catalogue order. None share one: none."""
    generic = generic_tags(views)
    mine = set(p.tags) - generic
    rank = difficulty_rank(p.difficulty)
    scored = []
    for order, v in enumerate(views):
        shared = tuple(t for t in v.tags if t in mine)
        if v.id != p.id and shared:
            scored.append(((-len(shared), abs(difficulty_rank(v.difficulty) - rank), order), v, shared))
    scored.sort(key=lambda s: s[0])
    return tuple(_entry(v, statuses, shared) for _, v, shared in scored[:limit])


def neighbours(views: Sequence[ProblemView], pid: str,
               statuses: Mapping[str, str]) -> tuple[Entry | None, Entry | None]:
    """The problems before and after ``pid`` in catalogue order; None at either end, or
    both when ``pid`` is not in the catalogue."""
    ids = [v.id for v in views]
    if pid not in ids:
        return None, None
    i = ids.index(pid)
    before = _entry(views[i - 1], statuses) if i > 0 else None
    after = _entry(views[i + 1], statuses) if i + 1 < len(views) else None
    return before, after


def related_to(views: Sequence[ProblemView], p: ProblemView, statuses: Mapping[str, str]) -> Related:
    previous, after = neighbours(views, p.id, statuses)
    return Related(similar(views, p, statuses), previous, after)


def titles(views: Sequence[ProblemView]) -> dict[str, str]:
    """Problem id to title. Pages look an id up with ``.get(pid, pid)``: a problem that
    left the catalogue (or cannot be loaded) still shows by its id."""
    return {v.id: v.title for v in views}
