"""The similarity report's data: what was compared, the ranked pairs and their matching regions."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Score = Literal["jaccard", "containment"]
SCORES: tuple[Score, ...] = ("jaccard", "containment")


@dataclass(frozen=True)
class Source:
    """One file of a learner's submission: its path (relative to the learner's folder, or the
    file's own name) and its text."""

    path: str
    text: str


@dataclass(frozen=True)
class SourceSet:
    """One learner's work as compared: a name (the file or folder in the compared folder) and its files."""

    name: str
    sources: tuple[Source, ...]


@dataclass(frozen=True)
class Skipped:
    """A file or folder left out, and why (too large, a link, not UTF-8...)."""

    name: str
    reason: str


@dataclass(frozen=True)
class Match:
    """One matching region: lines ``[first, last]`` (from 1) of a file of each submission."""

    left_file: str
    left_lines: tuple[int, int]
    right_file: str
    right_lines: tuple[int, int]
    fingerprints: int  # shared fingerprints inside the region: its weight


@dataclass(frozen=True)
class Pair:
    """Two submissions, the share of each one's fingerprints found in the other, their Jaccard
    index, the score that ranks the pair (the Jaccard index, or with ``containment`` the larger
    share), how many fingerprints they share and the regions that match (for the top pairs)."""

    left: str
    right: str
    score: float
    left_share: float
    right_share: float
    jaccard: float
    shared: int
    matches: list[Match] = field(default_factory=list)


@dataclass(frozen=True)
class Report:
    """Every pair of submissions that shares a fingerprint, best first (the top ones with their
    regions), with what was left out. For a person to read: never a verdict."""

    problem: str
    submissions: int
    pairs: list[Pair]
    pairs_found: int  # pairs scoring at least the minimum; ``pairs`` holds the top ones
    skipped: list[Skipped]
    fingerprints_from_starter: int  # fingerprints dropped because the starter code holds them
    fingerprints_common: int        # dropped because more than ``common`` of the submissions share them
    common: float
    k: int
    window: int
    score: Score = "jaccard"
    note: str = ("A report for a person to read, never a verdict: similar code has innocent causes "
                 "(the statement's hints, a shared tutorial, a short problem with one natural solution).")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
