"""The submission stage: the file, read and parsed. Nothing of it runs here. A notebook
(``.ipynb``) becomes the source its code cells hold (see ``notebook``)."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from ..sandbox.language import SUBMISSION_FILE
from . import notebook

MAX_SOURCE_BYTES = 256 * 1024


class SubmissionError(Exception):
    """The file cannot be judged at all (missing, or the operating system refuses to read
    it): a usage error. A file that is read but is not usable source is a compile error."""


@dataclass(frozen=True)
class ParsedSubmission:
    path: str
    source: str
    tree: ast.Module | None
    syntax_error: str | None
    # A notebook's: per line of ``source``, (cell, line in that cell); reports name those.
    cells: tuple[tuple[int, int], ...] | None = None


def parse_source(source: str, path: str = "<string>") -> ParsedSubmission:
    try:
        tree = ast.parse(source, SUBMISSION_FILE)
    except SyntaxError as exc:
        return ParsedSubmission(path, source, None, f"line {exc.lineno}: {exc.msg}")
    except ValueError as exc:  # e.g. NUL bytes
        return ParsedSubmission(path, source, None, str(exc))
    except (RecursionError, MemoryError):  # CPython's parser gives up on very deep nesting
        return ParsedSubmission(path, source, None, "the code nests too deeply to be parsed")
    return ParsedSubmission(path, source, tree, None)


def is_notebook(path: str | Path) -> bool:
    return Path(path).suffix.lower() == notebook.SUFFIX


def parse_notebook(text: str, path: str = "<notebook>", cell_tag: str | None = None) -> ParsedSubmission:
    """A notebook's code cells (those tagged ``cell_tag`` when given) as the submission; a
    file that is not a usable notebook, or holds IPython syntax, is a compile error."""
    nb = notebook.extract(text, cell_tag)
    if nb.error is not None:
        return ParsedSubmission(path, "", None, nb.error)
    if len(nb.source.encode("utf-8")) > MAX_SOURCE_BYTES:
        return ParsedSubmission(path, "", None,
                                f"the graded cells hold more than {MAX_SOURCE_BYTES // 1024} KiB of code")
    sub = parse_source(nb.source, path)
    error = notebook.relabel(sub.syntax_error, nb.lines) if sub.syntax_error else None
    return ParsedSubmission(path, sub.source, sub.tree, error, nb.lines)


def parse_file_text(text: str, path: str, cell_tag: str | None = None) -> ParsedSubmission:
    """A submission from a file's text: a notebook by its suffix, else Python source."""
    return parse_notebook(text, path, cell_tag) if is_notebook(path) else parse_source(text, path)


def submission_from_bytes(data: bytes, path: str, cell_tag: str | None = None) -> ParsedSubmission:
    """A submission from a file's bytes. Too large, or not UTF-8 (Python source and
    notebooks both are UTF-8), is a compile error naming why: the learner's file, not
    the judge's command line, is at fault."""
    limit = notebook.MAX_NOTEBOOK_BYTES if is_notebook(path) else MAX_SOURCE_BYTES
    what = "notebook" if is_notebook(path) else "file"
    if len(data) > limit:
        return ParsedSubmission(path, "", None, f"the {what} is larger than {limit // 1024} KiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ParsedSubmission(path, "", None, f"the {what} is not UTF-8 text (byte {exc.start}); save it as UTF-8")
    return parse_file_text(text, path, cell_tag)


def load_submission(path: str | Path, cell_tag: str | None = None) -> ParsedSubmission:
    p = Path(path)
    if cell_tag is not None and not is_notebook(p):
        raise SubmissionError(f"{p}: --cell-tag applies to notebooks (.ipynb) only")
    limit = notebook.MAX_NOTEBOOK_BYTES if is_notebook(p) else MAX_SOURCE_BYTES
    try:
        if not p.is_file():
            raise SubmissionError(f"{p}: no such file")
        with p.open("rb") as f:
            data = f.read(limit + 1)  # never more than one byte past the limit
    except OSError as exc:
        raise SubmissionError(f"{p}: cannot be read ({exc.strerror})") from None
    return submission_from_bytes(data, str(path), cell_tag)
