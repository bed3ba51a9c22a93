"""What a page builds from a problem's folder, kept until a file it reads there changes:
the catalogue is read from disk, and an author's edit shows on the next request."""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable, Generic, TypeVar

T = TypeVar("T")


class FolderCache(Generic[T]):
    """Built values per problem id, each valid while ``files`` (paths in the problem's
    folder) keep their modification time and size."""

    def __init__(self, files: tuple[str, ...]) -> None:
        self.files = files
        self._kept: dict[str, tuple[tuple, T]] = {}
        self._lock = threading.Lock()

    def _fingerprint(self, folder: Path) -> tuple:
        marks: list[object] = [str(folder.resolve())]
        for rel in self.files:
            try:
                st = (folder / rel).stat()
                marks.append((st.st_mtime_ns, st.st_size))
            except OSError:
                marks.append(None)
        return tuple(marks)

    def get(self, pid: str, folder: Path, build: Callable[[str, Path], T]) -> T:
        key = self._fingerprint(folder)
        with self._lock:
            hit = self._kept.get(pid)
        if hit is not None and hit[0] == key:
            return hit[1]
        value = build(pid, folder)
        with self._lock:
            self._kept[pid] = (key, value)
        return value
