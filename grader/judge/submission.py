"""Stage 2: the submission file, read and parsed. Nothing of it runs here."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from ..sandbox.language import SUBMISSION_FILE

MAX_SOURCE_BYTES = 256 * 1024


class SubmissionError(Exception):
    """The file cannot be judged at all (missing, unreadable, not text): a usage error."""


@dataclass(frozen=True)
class Submission:
    path: str
    source: str
    tree: ast.Module | None
    syntax_error: str | None


def parse_source(source: str, path: str = "<string>") -> Submission:
    try:
        tree = ast.parse(source, SUBMISSION_FILE)
    except SyntaxError as exc:
        return Submission(path, source, None, f"line {exc.lineno}: {exc.msg}")
    except ValueError as exc:  # e.g. NUL bytes
        return Submission(path, source, None, str(exc))
    except (RecursionError, MemoryError):  # CPython's parser gives up on very deep nesting
        return Submission(path, source, None, "the code nests too deeply to be parsed")
    return Submission(path, source, tree, None)


def load_submission(path: str | Path) -> Submission:
    p = Path(path)
    try:
        if not p.is_file():
            raise SubmissionError(f"{p}: no such file")
        if p.stat().st_size > MAX_SOURCE_BYTES:
            raise SubmissionError(f"{p}: larger than {MAX_SOURCE_BYTES // 1024} KiB")
        source = p.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise SubmissionError(f"{p}: not UTF-8 text") from None
    except OSError as exc:
        raise SubmissionError(f"{p}: cannot be read ({exc.strerror})") from None
    return parse_source(source, str(path))
