"""Notebook submissions (``.ipynb``, Jupyter and Colab): the code cells, read with
nbformat, joined in order into one Python source; with a tag, only the cells that
carry it (``metadata.tags``, as otter-grader and Jupyter mark them, or an nbgrader
flag such as ``metadata.nbgrader.solution``).

Cells are numbered as the notebook shows them, from 1, counting every cell (markdown
too). The joined source keeps a map from its lines to (cell, line in cell), so every
finding that names a line names the cell and the line in it (``locate``).

IPython syntax (``%magic``, ``%%cell_magic``, ``!shell``, ``x = !cmd``, ``obj?``) is
not Python: it is a compile error that names the cell, never a syntax error at a
shifted line. A file that is not a notebook (not JSON, not nbformat 4, invalid, no
code cells) is a compile error with one clear message. Nothing here runs the code.
"""
from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass, replace

from ..report.model import Report

SUFFIX = ".ipynb"
MAX_NOTEBOOK_BYTES = 16 * 1024 * 1024  # outputs (plots) make notebooks large; only code is kept

_MAGIC = re.compile(r"^\s*(%%?[A-Za-z_]|!)|^[^#'\"]*=\s*(%[A-Za-z_]|!)|^[^#'\"]*[A-Za-z0-9_)\]]\?\??\s*$")
_LINE = re.compile(r"\b([Ll])ine (\d+(?:, \d+)*)\b")


@dataclass(frozen=True)
class NotebookSource:
    """The submission a notebook holds: ``source`` and, per line of it, (cell, line);
    or ``error``, the compile error that stands for it."""

    source: str = ""
    lines: tuple[tuple[int, int], ...] = ()
    error: str | None = None


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else type(exc).__name__
    return first[:200] + ("..." if len(first) > 200 else "")


def _read(text: str):
    """The nbformat 4 notebook, or a message saying why there is none."""
    import json

    import nbformat

    try:
        data = json.loads(text)
    except ValueError:
        return None, "not a notebook: the file is not JSON"
    except (RecursionError, MemoryError):
        return None, "not a notebook: the JSON nests too deeply"
    if not isinstance(data, dict):
        return None, "not a notebook: the JSON is not an object"
    major = data.get("nbformat")
    if major is None:
        return None, "not a notebook: the JSON has no 'nbformat' version"
    if major != 4 or isinstance(major, bool):
        return None, (f"nbformat version {repr(major)[:20]} is not supported; save the notebook with Jupyter or "
                      f"Colab (nbformat 4)")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nb = nbformat.reader.reads(text)
            nbformat.validate(nb)
    except nbformat.ValidationError as exc:
        return None, f"not a valid notebook (nbformat 4): {_short(exc)}"
    except Exception as exc:  # noqa: BLE001 - any reader failure is the file's, never a traceback
        return None, f"not a valid notebook (nbformat 4): {type(exc).__name__}"
    return nb, None


def _tagged(cell, tag: str) -> bool:
    meta = cell.get("metadata") or {}
    tags = meta.get("tags") or []
    flags = meta.get("nbgrader") or {}
    return (isinstance(tags, list) and tag in tags) or (isinstance(flags, dict) and flags.get(tag) is True)


def _lines(source: str) -> list[str]:
    """The lines as Python's tokenizer counts them (``\\n``, ``\\r\\n`` and ``\\r`` end one)."""
    lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _cell_error(number: int, lines: list[str]) -> str | None:
    """A compile error for one cell on its own, naming the cell: IPython syntax or Python's."""
    try:
        ast.parse("\n".join(lines) + "\n")
        return None
    except SyntaxError as exc:
        at = exc.lineno or 1
        text = lines[at - 1] if 0 < at <= len(lines) else ""
        if _MAGIC.search(text):
            shown = text.strip()[:60]
            return (f"cell {number} line {at}: IPython syntax '{shown}' (a magic, shell escape or help) is not "
                    f"Python; the judge runs the cells as plain Python, so remove it from the graded cells")
        return f"cell {number} line {at}: {exc.msg}"
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"cell {number}: {'the code nests too deeply to be parsed' if not isinstance(exc, ValueError) else exc}"


def extract(text: str, cell_tag: str | None = None) -> NotebookSource:
    """The code cells of the notebook ``text`` as one source, in order (only those tagged
    ``cell_tag`` when given)."""
    nb, why = _read(text)
    if why:
        return NotebookSource(error=why)
    chosen = [(n, c) for n, c in enumerate(nb.cells, 1)
              if c.get("cell_type") == "code" and (cell_tag is None or _tagged(c, cell_tag))]
    if not chosen:
        return NotebookSource(error="the notebook has no code cells" if cell_tag is None
                              else f"no code cell is tagged '{cell_tag}' (metadata.tags, or an nbgrader flag)")
    out: list[str] = []
    where: list[tuple[int, int]] = []
    for number, cell in chosen:
        lines = _lines(cell.get("source") or "")
        error = _cell_error(number, lines)
        if error:
            return NotebookSource(error=error)
        out += lines
        where += [(number, i) for i in range(1, len(lines) + 1)]
    if not out:
        return NotebookSource(error="the graded code cells are empty")
    return NotebookSource("\n".join(out) + "\n", tuple(where))


def relabel(text: str, lines: tuple[tuple[int, int], ...]) -> str:
    """Every "line N" of the joined source in ``text`` as "cell C line L"."""
    if not lines or not text:
        return text

    def one(n: str) -> str:
        k = int(n)
        return f"cell {lines[k - 1][0]} line {lines[k - 1][1]}" if 0 < k <= len(lines) else f"line {n}"

    def sub(m: re.Match) -> str:
        out = ", ".join(one(n) for n in m.group(2).split(", "))
        return out[0].upper() + out[1:] if m.group(1) == "L" else out

    return _LINE.sub(sub, text)


def locate(report: Report, lines: tuple[tuple[int, int], ...] | None) -> Report:
    """The report with every line of the joined source named as its cell and line."""
    if not lines:
        return report
    static = [replace(c, message=relabel(c.message, lines)) for c in report.static_checks]
    runtime = [replace(c, message=relabel(c.message, lines)) for c in report.runtime_checks]
    cases = [replace(c, message=relabel(c.message, lines)) if c.visibility == "public" else c for c in report.cases]
    counter = report.counterexample
    if isinstance(counter, dict) and isinstance(counter.get("message"), str):
        counter = {**counter, "message": relabel(counter["message"], lines)}
    return replace(report, message=relabel(report.message, lines), cases=cases, counterexample=counter,
                   static_checks=static, runtime_checks=runtime)
