"""Bar charts as server-rendered SVG: the geometry is computed here, and the
``_charts.html`` macros only write it out (no script draws anything, so a chart shows
under the pages' CSP and without JavaScript). Every bar may link somewhere (the
Submits behind it), and every chart comes with its figures as a table beside it."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

WIDTH = 640  # the viewBox's width; CSS scales the chart to its column
ROW = 38  # one bar of a horizontal chart: its label above, the bar below
BAR = 14
LABEL_CHARS = 95  # a longer label is cut in the chart (the table has it whole)
PLOT = 150  # a column chart's plot height
COLUMN_GAP = 2


@dataclass(frozen=True)
class Segment:
    x: float
    width: float
    kind: str  # the CSS class: what the part of the bar counts
    title: str


@dataclass(frozen=True)
class HBar:
    label: str  # as shown (cut to ``LABEL_CHARS``)
    full: str  # the whole label
    y: float
    segments: list[Segment]
    text: str  # the figure, after the bar
    text_x: float
    href: str | None
    name: str  # the link's accessible name


@dataclass
class HChart:
    id: str
    title: str
    bars: list[HBar] = field(default_factory=list)

    @property
    def height(self) -> int:
        return max(1, len(self.bars)) * ROW


def _cut(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 1] + "…"


def hchart(chart_id: str, title: str, rows: list[tuple], most: int | None = None) -> HChart:
    """One bar per row of ``rows``: (label, [(value, kind, what)], text, href, name), the
    parts of a bar side by side, scaled so that the longest bar (or ``most``) fills the width."""
    longest = max([most or 0, *(sum(v for v, _, _ in parts) for _, parts, *_ in rows)]) or 1
    span = WIDTH - 60  # room for the figure after the longest bar
    chart = HChart(chart_id, title)
    for i, (label, parts, text, href, name) in enumerate(rows):
        x, segments = 0.0, []
        for value, kind, what in parts:
            width = span * value / longest
            segments.append(Segment(round(x, 1), round(width, 1), kind, what))
            x += width
        chart.bars.append(HBar(_cut(label), label, i * ROW, segments, text, round(x + 4, 1), href, name))
    return chart


@dataclass(frozen=True)
class Column:
    x: float
    width: float
    on_y: float
    on_height: float
    late_y: float
    late_height: float
    until: datetime
    on_time: int
    late: int

    @property
    def stamp(self) -> str:
        return stamp(self.until)


def stamp(t: datetime) -> str:
    """A time as SVG text, which holds no ``<time>`` for the script to rewrite: in UTC, named."""
    return f"{t.astimezone(timezone.utc):%Y-%m-%d %H:%M} UTC"


@dataclass
class ColumnChart:
    id: str
    title: str
    columns: list[Column]
    due_x: float | None  # where the due time falls, None outside the span
    most: int
    href: str | None
    start: str  # the time at the left end, as ``stamp`` writes it

    height: int = PLOT + 30  # the plot, and a line of labels under it


def column_chart(chart_id: str, title: str, ticks, due: datetime, start: datetime, most: int,
                 href: str | None) -> ColumnChart:
    """Stacked columns over time (``ticks``: until, on_time, late; equal steps from
    ``start``), scaled to ``most`` learners, with the due time marked."""
    n = max(1, len(ticks))
    width = WIDTH / n
    scale = PLOT / (most or 1)
    columns = []
    for i, t in enumerate(ticks):
        on_h, late_h = t.on_time * scale, t.late * scale
        columns.append(Column(round(i * width, 1), round(max(1.0, width - COLUMN_GAP), 1), round(PLOT - on_h, 1),
                              round(on_h, 1), round(PLOT - on_h - late_h, 1), round(late_h, 1), t.until, t.on_time,
                              t.late))
    due_x = None
    if ticks and start <= due <= ticks[-1].until:
        due_x = round(WIDTH * (due - start) / (ticks[-1].until - start), 1)
    return ColumnChart(chart_id, title, columns, due_x, most, href, stamp(start))


HIST_PLOT = 110  # a histogram's plot height; its labels go under it, its counts above each bar


@dataclass(frozen=True)
class HistBar:
    x: float
    width: float
    y: float
    height: float
    label: str
    value: int
    center: float
    href: str | None = None  # the Submits of the learners behind it


@dataclass
class Histogram:
    id: str
    title: str
    bars: list[HistBar]
    height: int = HIST_PLOT + 34


def histogram(chart_id: str, title: str, values: list[tuple[str, int]],
              hrefs: list[str | None] | None = None) -> Histogram:
    """A distribution: one column per (label, count), side by side, scaled to the largest;
    a column with a count links to ``hrefs`` at its index, when given."""
    most = max([v for _, v in values] + [1])
    width = WIDTH / max(1, len(values))
    top = 16  # room for the count above the tallest column
    bars = []
    for i, (label, value) in enumerate(values):
        h = (HIST_PLOT - top) * value / most
        href = hrefs[i] if hrefs and value else None
        bars.append(HistBar(round(i * width + 4, 1), round(width - 8, 1), round(HIST_PLOT - h, 1), round(h, 1),
                            label, value, round(i * width + width / 2, 1), href))
    return Histogram(chart_id, title, bars)
