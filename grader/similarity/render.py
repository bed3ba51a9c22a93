"""The report for a terminal: the ranked pairs, then each top pair's matching regions side by
side. Every piece of submission text (code and file names) reaches the console as a rich
``Text`` through ``visible``: never markup, and no control character a terminal would act on."""
from __future__ import annotations

import json
from typing import Any

from ..report.text import make_console, visible
from .model import Match, Pair, Report, SourceSet

MAX_REGION_LINES = 40
MAX_LINE_CHARS = 100


def _t(value: Any, style: str = "") -> Any:
    from rich.text import Text

    return Text(visible(value), style=style)


def region_lines(subs: dict[str, SourceSet], name: str, path: str, span: tuple[int, int]) -> list[tuple[int, str]]:
    """Lines ``span`` of file ``path`` of submission ``name``, numbered, at most
    ``MAX_REGION_LINES`` of ``MAX_LINE_CHARS`` each, with no control character."""
    for source in subs[name].sources:
        if source.path == path:
            lines = source.text.splitlines()
            first, last = span
            last = min(last, first + MAX_REGION_LINES - 1)
            return [(n, visible(lines[n - 1].expandtabs(4)[:MAX_LINE_CHARS]) if n <= len(lines) else "")
                    for n in range(first, last + 1)]
    return []


def _region(subs: dict[str, SourceSet], pair: Pair, match: Match) -> Any:
    from rich.table import Table
    from rich.text import Text

    left = region_lines(subs, pair.left, match.left_file, match.left_lines)
    right = region_lines(subs, pair.right, match.right_file, match.right_lines)
    table = Table(box=None, show_header=True, pad_edge=False, expand=False)
    width = len(str(max(match.left_lines[1], match.right_lines[1])))
    for title in (f"{match.left_file}:{match.left_lines[0]}-{match.left_lines[1]}",
                  f"{match.right_file}:{match.right_lines[0]}-{match.right_lines[1]}"):
        table.add_column(_t(title, "bold"), no_wrap=True, overflow="ellipsis", max_width=MAX_LINE_CHARS + width + 2)
    for i in range(max(len(left), len(right))):
        row: list[Any] = []
        for side in (left, right):
            n, text = side[i] if i < len(side) else (None, "")
            row.append(Text.assemble((f"{n if n is not None else '':>{width}}  ", "dim"), text))
        table.add_row(*row)
    return table


def render_text(report: Report, subs: list[SourceSet], console=None) -> None:
    from rich.table import Table
    from rich.text import Text

    con = console or make_console()
    con.print(Text.assemble(("Similar code ", "bold"), visible(report.problem), f"  {report.submissions} submissions"))
    con.print(Text(report.note, style="yellow"))
    what = "Jaccard index" if report.score == "jaccard" else "larger share (containment)"
    con.print(Text(f"Score: the {what} of winnowed fingerprints ({report.k}-token k-grams, window "
                   f"{report.window}), after leaving out {report.fingerprints_from_starter} fingerprint(s) of the "
                   f"starter code and {report.fingerprints_common} shared by more than {report.common:.0%} of the "
                   f"submissions.", style="dim"))
    if report.submissions < 2:
        con.print(Text(f"Nothing to compare: {report.submissions} submission(s) found; at least two are needed."))
    elif not report.pairs:
        con.print(Text("No two submissions share code beyond the starter (at the minimum score asked for)."))
    else:
        table = Table("#", "left", "right", "score", "left share", "right share", "regions", box=None)
        for rank, pair in enumerate(report.pairs, 1):
            table.add_row(str(rank), _t(pair.left), _t(pair.right), f"{pair.score:.2f}", f"{pair.left_share:.0%}",
                          f"{pair.right_share:.0%}", str(len(pair.matches)))
        con.print(table)
        if report.pairs_found > len(report.pairs):
            con.print(Text(f"(top {len(report.pairs)} of {report.pairs_found} pairs; --top shows more)", style="dim"))
        by_name = {s.name: s for s in subs}
        for rank, pair in enumerate(report.pairs, 1):
            con.print()
            con.print(Text.assemble((f"#{rank} ", "bold"), _t(pair.left, "bold"), "  and  ", _t(pair.right, "bold"),
                                    f"   score {pair.score:.2f}, {pair.shared} shared fingerprint(s)"))
            for match in pair.matches:
                con.print(_region(by_name, pair, match))
                con.print()
    for skip in report.skipped:
        con.print(Text.assemble(("skipped ", "dim"), _t(skip.name), f": {visible(skip.reason)}"))


def render_json(report: Report) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"
