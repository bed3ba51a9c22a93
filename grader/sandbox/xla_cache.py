"""XLA's persistent compilation cache, filled only by the trusted judge.

A submission that cannot be jitted runs eagerly, and eager JAX compiles every
primitive for every shape: the same small programs for every submission of a
problem. Before a batch the judge runs the problem's reference eagerly on every
case, once per machine, in a process of its own that may write the cache. The
sandboxed children only read it: their Landlock rules list the directory as
read-only, and a minimum compile time no compile reaches keeps JAX from trying to
write. A cache that a submission could write to would let it plant executables
for the submissions graded after it.

    JAXJUDGE_XLA_CACHE=DIR   where the cache lives (default ~/.cache/jaxjudge/xla)
    JAXJUDGE_XLA_CACHE=off   no cache
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from ..problem import Problem

CACHE_ENV = "JAXJUDGE_XLA_CACHE"
FILL_TIMEOUT = 600.0


def cache_dir() -> Path | None:
    """This jaxlib's cache directory, or None when the cache is off."""
    value = os.environ.get(CACHE_ENV, "")
    if value.lower() == "off":
        return None
    try:
        jaxlib = version("jaxlib")
    except PackageNotFoundError:
        return None
    cache_home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    base = Path(value) if value else cache_home / "jaxjudge" / "xla"
    return base / f"jaxlib-{jaxlib}"


def readable_cache() -> str | None:
    """The directory children may read, if it exists."""
    path = cache_dir()
    return str(path) if path is not None and path.is_dir() else None


def _marker(problem: "Problem", root: Path) -> Path:
    from .env import child_env

    digest = hashlib.sha256(problem.reference_path.read_bytes())
    digest.update(child_env()["XLA_FLAGS"].encode())  # entries are keyed by the compiler's flags too
    for case in problem.cases:
        digest.update(case.id.encode())
    return root / f"filled-{problem.id}-{digest.hexdigest()[:16]}"


def fill(problem: "Problem", started: Callable[[subprocess.Popen], None] = lambda _proc: None) -> bool:
    """Fill the cache for ``problem`` unless done already; False if it could not be.
    Never raises: a batch without the cache is slower, not wrong. ``started`` gets the
    filling process, so that a caller can end it (a server's warming, when a grade comes)."""
    from .env import child_env

    root = cache_dir()
    if root is None:
        return False
    marker = _marker(problem, root)
    if marker.exists():
        return True
    try:
        root.mkdir(parents=True, exist_ok=True)
        proc = subprocess.Popen([sys.executable, "-m", "grader.sandbox.cache_filler", str(problem.root), str(root)],
                                env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started(proc)
        try:
            code = proc.wait(timeout=FILL_TIMEOUT)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if code != 0:
            return False
        tmp = marker.with_suffix(".tmp")
        tmp.write_text(problem.id + "\n")
        tmp.replace(marker)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return True
