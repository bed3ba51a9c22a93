"""CSV in and out. Every CSV the service writes goes through ``write_csv``, which makes
each cell, headers included, one a spreadsheet shows as text and never runs as a
formula; every CSV it reads goes through ``read_csv``, which takes any line ending and
bounds a field's length, and names the line of what it cannot read."""
from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

Cell = str | int | float | None
# A cell starting with one of these is a formula to some spreadsheet (tab and CR: some
# skip them before reading the next character).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
MAX_FIELD = 10_000  # characters of one field of a CSV read; an email has at most 320


class MalformedCsv(ValueError):
    """A text that cannot be read as CSV; the message names the line and the rule."""


def spreadsheet_safe(value: Cell) -> Cell:
    """A cell a spreadsheet shows as text, never runs as a formula: text starting like
    one gets a leading ``'``; numbers and empty cells stay as they are."""
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_START) else value


def write_csv(header: Sequence[str], rows: Iterable[Sequence[Cell]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([spreadsheet_safe(h) for h in header])
    for row in rows:
        w.writerow([spreadsheet_safe(v) for v in row])
    return buf.getvalue()


def read_csv(text: str, max_field: int = MAX_FIELD) -> list[tuple[int, list[str]]]:
    """Each row with the line of the file it ends on (a quoted field may span lines).
    LF, CRLF and CR-only line endings (old Mac Excel) are read alike, in one file too;
    a leading byte-order mark (Excel's "CSV UTF-8") is dropped."""
    # newline=None: universal newlines, so that a bare CR ends a line instead of being a
    # csv.Error ("new-line character seen in unquoted field").
    reader = csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline=None))
    too_long = f"a field has more than {max_field} characters"
    rows = []
    try:
        for row in reader:
            if any(len(field) > max_field for field in row):
                raise MalformedCsv(f"line {reader.line_num}: {too_long}")
            rows.append((reader.line_num, row))
    except csv.Error as exc:
        # The module's own limit (field_size_limit, 131072) is above ours: the same rule.
        rule = too_long if "field limit" in str(exc) else f"not readable as CSV ({exc})"
        raise MalformedCsv(f"line {reader.line_num}: {rule}") from None
    return rows
