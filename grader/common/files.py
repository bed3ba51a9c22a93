"""Writing files so that a crash or a concurrent writer never leaves one half written."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

CACHE_ENV = "JAXJUDGE_CACHE"


def write_atomic(path: Path, text: str | bytes, exclusive: bool = False) -> bool:
    """Write ``text`` (UTF-8) or bytes via a temp file in the same folder; with
    ``exclusive`` never replace an existing file (returns False instead), so concurrent
    authors cannot clobber each other."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8") if isinstance(text, str) else text)
            fh.flush()
            os.fsync(fh.fileno())
        if exclusive:
            try:
                os.link(tmp, path)
            except FileExistsError:
                return False
        else:
            os.replace(tmp, path)
            tmp = ""
        return True
    finally:
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)


def cache_dir(kind: str) -> Path:
    """The judge's own cache (never readable by a sandboxed child): ``$JAXJUDGE_CACHE``,
    else ``$XDG_CACHE_HOME/jaxjudge`` or ``~/.cache/jaxjudge``; one folder per kind."""
    base = os.environ.get(CACHE_ENV) or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "jaxjudge")
    return Path(base) / kind
