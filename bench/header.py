"""What every bench prints first, and its ``--save FILE``.

A bench's numbers mean little without where and when they were taken, so each bench
starts its output with a header: the command, the commit (and whether the work tree
had changes), the date, the machine (kernel, cores, CPU, load average), Python and
JAX's versions, and the time of a fresh ``python3 -c "import jax"`` (the yardstick of
the machine's speed that day: compare ratios, not seconds, across headers).

    ap = argparse.ArgumentParser(...)
    header.add_save_option(ap)
    opts = ap.parse_args()
    header.start(opts)      # prints the header; from here standard output is recorded
    ...                     # the bench prints its results
    header.save(opts)       # with --save FILE: everything printed since start() -> FILE

A bench that fails (``sys.exit`` with a message) never reaches ``save``: no half
output is saved. The saved files under ``docs/pages/performance/`` are what the
documentation's performance page shows.
"""
from __future__ import annotations

import argparse
import datetime
import io
import os
import platform
import shlex
import subprocess
import sys
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class _Tee(io.TextIOBase):
    """Standard output, also kept in memory."""

    def __init__(self, out) -> None:
        self.out, self.kept = out, io.StringIO()

    def write(self, text: str) -> int:
        self.kept.write(text)
        return self.out.write(text)

    def flush(self) -> None:
        self.out.flush()

    def isatty(self) -> bool:
        return self.out.isatty()


def add_save_option(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--save", type=Path, default=None, metavar="FILE",
                    help="also write the output (header included) to FILE, e.g. docs/pages/performance/NAME.txt")


def _git(*args: str) -> str | None:
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0")  # read only: never refresh the index
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30, env=env,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _commit() -> str:
    head = _git("rev-parse", "--short=12", "HEAD")
    if head is None:
        return "unknown (not a git checkout)"
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    return head + (" (with uncommitted changes)" if dirty else "")


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _versions() -> str:
    found = []
    for name in ("jax", "jaxlib"):
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            found.append(f"{name} not installed")
    return f"Python {platform.python_version()}, " + ", ".join(found)


def _import_jax() -> str:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", "import jax"], capture_output=True, timeout=300, check=False)
    elapsed = time.perf_counter() - start
    return f"{elapsed:.2f} s" if done.returncode == 0 else "failed (JAX does not import)"


def header() -> str:
    """The header's lines (the import of JAX is timed now, in a fresh process)."""
    load = " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    command = " ".join(["python3", *(shlex.quote(a) for a in [Path(sys.argv[0]).as_posix(), *sys.argv[1:]])])
    rows = [
        ("bench", command),
        ("commit", _commit()),
        ("date", now),
        ("machine", (f"{platform.system()} {platform.release()} {platform.machine()}, {os.cpu_count()} cores "
                     f"({_cpu()}), load average {load}")),
        ("software", _versions()),
        ("import jax", _import_jax() + ' (a fresh python3 -c "import jax")'),
    ]
    return "".join(f"# {k:<10} {v}\n" for k, v in rows)


def start(opts: argparse.Namespace | None = None) -> None:
    """Print the header; with ``--save``, record standard output from here on."""
    if opts is not None and getattr(opts, "save", None) is not None and not isinstance(sys.stdout, _Tee):
        sys.stdout = _Tee(sys.stdout)
    print(header(), flush=True)


def save(opts: argparse.Namespace | None = None) -> None:
    """With ``--save FILE``: write what was printed since ``start`` to FILE (atomically)."""
    path = getattr(opts, "save", None) if opts is not None else None
    if path is None or not isinstance(sys.stdout, _Tee):
        return
    sys.stdout.flush()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(sys.stdout.kept.getvalue(), encoding="utf-8")
    os.replace(tmp, path)
    print(f"saved to {path}", file=sys.stderr)
