"""A matching region as rows of lines side by side, for a person to compare: each row holds
a line of each submission (or of one of them, where the other has nothing there), the lines
the two share after normalisation (names, literals and layout aside) are marked, and a few
lines of context frame the region. One row per line pair keeps the two sides level however
long a line is, where two separate blocks of text drift apart as soon as one line wraps."""
from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import zip_longest

from ..report.text import visible
from .model import Match, SourceSet
from .tokens import normalise

CONTEXT = 2  # lines shown before and after a region, unmarked
MAX_REGION_LINES = 40
MAX_LINE_CHARS = 400


@dataclass(frozen=True)
class Cell:
    """One side of a row: a line number (None: this side has no line here), its text with
    no control character, and whether it is a line the two submissions share."""

    line: int | None
    text: str = ""
    shared: bool = False


@dataclass(frozen=True)
class Row:
    left: Cell
    right: Cell


def _text_of(subs: dict[str, SourceSet], name: str, path: str) -> str:
    for source in subs[name].sources:
        if source.path == path:
            return source.text
    return ""


def line_keys(text: str) -> dict[int, tuple[str, ...]]:
    """The normalised tokens that start on each line (a line with none, blank or a comment,
    is absent): two lines with the same key differ only in what normalisation ignores."""
    keys: dict[int, list[str]] = {}
    for token in normalise(text):
        keys.setdefault(token.line, []).append(token.text)
    return {n: tuple(k) for n, k in keys.items()}


class _Side:
    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.keys = line_keys(text)

    def cell(self, n: int | None, shared: bool = False) -> Cell:
        if n is None or not 1 <= n <= len(self.lines):
            return Cell(None)
        return Cell(n, visible(self.lines[n - 1].expandtabs(4)[:MAX_LINE_CHARS]), shared)

    def span(self, first: int, last: int) -> list[int]:
        return list(range(max(first, 1), min(last, len(self.lines)) + 1))


def align(left_text: str, left_lines: tuple[int, int], right_text: str, right_lines: tuple[int, int],
          context: int = CONTEXT) -> list[Row]:
    """The region ``left_lines`` of ``left_text`` beside ``right_lines`` of ``right_text``
    (each at most ``MAX_REGION_LINES`` long), lines paired by their normalised tokens, with
    ``context`` lines before and after."""
    a, b = _Side(left_text), _Side(right_text)
    la = a.span(left_lines[0], min(left_lines[1], left_lines[0] + MAX_REGION_LINES - 1))
    lb = b.span(right_lines[0], min(right_lines[1], right_lines[0] + MAX_REGION_LINES - 1))
    rows: list[Row] = []
    # Context before the region ends level with it: the shorter side is padded at the top.
    before_a: list[int | None] = [*a.span(left_lines[0] - context, left_lines[0] - 1)]
    before_b: list[int | None] = [*b.span(right_lines[0] - context, right_lines[0] - 1)]
    pad = len(before_a) - len(before_b)
    rows += [Row(a.cell(x), b.cell(y)) for x, y in zip([None] * -pad + before_a, [None] * pad + before_b)]
    ka, kb = [a.keys.get(n, ()) for n in la], [b.keys.get(n, ()) for n in lb]
    for op, i1, i2, j1, j2 in SequenceMatcher(None, ka, kb, autojunk=False).get_opcodes():
        if op == "equal":  # a blank line on both sides lines up too, but shares no code
            rows += [Row(a.cell(x, bool(ka[i])), b.cell(y, bool(ka[i])))
                     for i, x, y in zip(range(i1, i2), la[i1:i2], lb[j1:j2])]
        else:
            rows += [Row(a.cell(x), b.cell(y)) for x, y in zip_longest(la[i1:i2], lb[j1:j2])]
    after_a = a.span(la[-1] + 1, la[-1] + context) if la else []
    after_b = b.span(lb[-1] + 1, lb[-1] + context) if lb else []
    rows += [Row(a.cell(x), b.cell(y)) for x, y in zip_longest(after_a, after_b)]
    return rows


def match_rows(subs: dict[str, SourceSet], left: str, right: str, match: Match,
               context: int = CONTEXT) -> list[Row]:
    """``align`` over the two files of ``match``, ``left``'s and ``right``'s (by name in ``subs``)."""
    return align(_text_of(subs, left, match.left_file), match.left_lines,
                 _text_of(subs, right, match.right_file), match.right_lines, context)
