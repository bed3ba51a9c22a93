"""Reading the compared folder: one entry per learner, a ``.py`` or ``.ipynb`` file or a folder
of them. Submissions are hostile: links are not followed, a file larger than ``MAX_FILE_BYTES``
is skipped unread, a folder holds at most ``MAX_FILES`` files, and bytes that are not UTF-8 are
replaced. A notebook's code cells are read from its JSON here (best effort, IPython lines blanked)
rather than with the judge's reader, which refuses a notebook holding ``%magic`` or ``!shell``."""
from __future__ import annotations

import json
import re
from pathlib import Path

from .model import Skipped, Source, SourceSet

MAX_FILE_BYTES = 256 * 1024
MAX_NOTEBOOK_BYTES = 16 * 1024 * 1024  # outputs (plots) make notebooks large; only code is kept
MAX_FILES = 50
SUFFIXES = (".py", ".ipynb")
_IPYTHON = re.compile(r"^\s*(%|!)")


def notebook_code(text: str) -> str | None:
    """The code cells of a notebook, joined in order; None when it is not a notebook."""
    try:
        cells = json.loads(text).get("cells")
    except (ValueError, AttributeError, RecursionError):
        return None
    if not isinstance(cells, list):
        return None
    lines: list[str] = []
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            src = cell.get("source", "")
            src = "".join(s for s in src if isinstance(s, str)) if isinstance(src, list) else str(src)
            lines += ["" if _IPYTHON.match(line) else line for line in src.splitlines()]
    return "\n".join(lines) + "\n"


def _read(path: Path, shown: str) -> Source | Skipped:
    limit = MAX_NOTEBOOK_BYTES if path.suffix.lower() == ".ipynb" else MAX_FILE_BYTES
    try:
        if path.is_symlink() or not path.is_file():
            return Skipped(shown, "not a regular file (links are not followed)")
        with path.open("rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        return Skipped(shown, f"unreadable: {exc.strerror or type(exc).__name__}")
    if len(data) > limit:
        return Skipped(shown, f"larger than {limit // 1024} KiB: not read")
    text = data.decode("utf-8", errors="replace")
    if path.suffix.lower() == ".ipynb":
        code = notebook_code(text)
        if code is None:
            return Skipped(shown, "not a notebook (not nbformat JSON with cells)")
        if len(code.encode()) > MAX_FILE_BYTES:
            return Skipped(shown, f"code cells larger than {MAX_FILE_BYTES // 1024} KiB: not compared")
        text = code
    return Source(shown, text)


def _files(folder: Path) -> list[Path]:
    out = []
    for p in sorted(folder.rglob("*")):
        parts = p.relative_to(folder).parts
        if any(x.startswith(".") or x == "__pycache__" for x in parts):
            continue
        if p.suffix.lower() in SUFFIXES and not p.is_dir():
            out.append(p)
    return out


def load_folder(folder: Path) -> tuple[list[SourceSet], list[Skipped]]:
    """Every learner's submission below ``folder``, and what was left out and why."""
    subs: list[SourceSet] = []
    skipped: list[Skipped] = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith(".") or entry.name == "__pycache__":
            continue
        if entry.is_symlink():
            skipped.append(Skipped(entry.name, "a link: not followed"))
        elif entry.is_dir():
            files = _files(entry)
            if not files:
                skipped.append(Skipped(entry.name, "a folder with no .py or .ipynb file"))
                continue
            if len(files) > MAX_FILES:
                skipped.append(Skipped(entry.name, f"more than {MAX_FILES} files: only the first {MAX_FILES} read"))
            read = [_read(p, str(p.relative_to(entry))) for p in files[:MAX_FILES]]
            skipped += [Skipped(f"{entry.name}/{r.name}", r.reason) for r in read if isinstance(r, Skipped)]
            sources = tuple(r for r in read if isinstance(r, Source))
            if sources:
                subs.append(SourceSet(entry.name, sources))
        elif entry.suffix.lower() in SUFFIXES:
            one = _read(entry, entry.name)
            if isinstance(one, Skipped):
                skipped.append(one)
            else:
                subs.append(SourceSet(entry.name, (one,)))
        else:
            skipped.append(Skipped(entry.name, "not a .py or .ipynb file"))
    return subs, skipped
