"""Sandboxes left behind by a dead server. A zygote runs in a session and process
group of its own (its pid); when the server dies, the zygote exits at the end of its
input, but a child it forked is then nobody's: no wall clock kills it, and only its
CPU limit (minutes, for a Submit) ends it. The reaper ends such process groups, and
so does a server that stops with a grade still running."""
from __future__ import annotations

import os
import signal
from pathlib import Path

ZYGOTE = b"grader.sandbox.zygote"


def _members(pgid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else []:
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[2]) == pgid and ZYGOTE in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


def kill_group(pgid: int) -> int:
    """SIGKILL the sandbox processes (zygote and children) of process group ``pgid``;
    only processes that are this package's zygote or its forks are touched, so a pid
    reused by something else is left alone. Returns how many were killed."""
    killed = 0
    for pid in _members(pgid):
        try:
            os.kill(pid, signal.SIGKILL)
            killed += 1
        except (ProcessLookupError, PermissionError):
            pass
    return killed
