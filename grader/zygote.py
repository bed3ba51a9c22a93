"""Stage 4a: the zygote. A trusted process that has imported JAX (but never
started a backend, so forking stays safe) and forks one fresh child per
request. It relays the child's frames to the judge and owns the wall clock:
a case that overruns, or a child that floods the channel, is SIGKILLed.

Run as ``python -m grader.zygote``; requests arrive as wire frames on stdin.
"""
from __future__ import annotations

import json
import os
import select
import signal
import struct
import sys
import time

from . import wire

MAX_REQUEST = 256 << 20
HEADROOM = 1 << 20  # frame headers and captured prints, on top of the output cap
STARTUP_SLACK = 10.0  # lockdown and the first import inside the child


def preload() -> None:
    """Everything a child needs, imported once here so that children start warm."""
    import jax  # noqa: F401
    import jax.flatten_util  # noqa: F401
    import jax.numpy  # noqa: F401
    import jax.scipy.special  # noqa: F401
    import ml_dtypes  # noqa: F401
    import numpy  # noqa: F401

    from . import child, instrument, lockdown, policy  # noqa: F401

    try:
        import pyseccomp  # noqa: F401
    except Exception:
        pass
    # Build the allow-listed module views once so their lazy submodules load now.
    policy.ModuleTable().get("jax")
    for name in policy.ALLOWED:
        policy.ModuleTable().get(name)


def _relay(r: int, pid: int, request: dict, out) -> dict:
    per_case = float(request["time_seconds"])
    cap = int(request["output_bytes"]) + HEADROOM
    deadline = time.monotonic() + float(request["load_seconds"]) + STARTUP_SLACK
    phase, killed = "load", None
    buf = bytearray()
    head = struct.Struct(">4sIQ")
    started = time.monotonic()
    while killed is None:
        left = deadline - time.monotonic()
        if left <= 0:
            killed = "timeout"
            break
        ready, _, _ = select.select([r], [], [], left)
        if not ready:
            continue
        chunk = os.read(r, 1 << 20)
        if not chunk:
            break
        buf += chunk
        while len(buf) >= head.size:
            magic, hlen, blen = head.unpack_from(buf)
            if magic != wire.MAGIC:
                killed = "protocol"
                break
            if hlen + blen > cap:
                killed = "ole"
                break
            total = head.size + hlen + blen
            if len(buf) < total:
                break
            try:
                kind = json.loads(bytes(buf[head.size:head.size + hlen])).get("type")
            except (ValueError, AttributeError):
                killed = "protocol"
                break
            out.write(bytes(buf[:total]))
            out.flush()
            del buf[:total]
            if kind == "begin":
                phase = "case"
            elif kind in ("case", "load", "runtime", "probe"):
                phase = "between"
            deadline = time.monotonic() + per_case
    if killed is not None:
        os.kill(pid, signal.SIGKILL)
    os.close(r)
    _, status, usage = os.wait4(pid, 0)
    return {"type": "exit", "killed": killed, "phase": phase,
            "code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            "maxrss_kb": usage.ru_maxrss, "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
            "wall_s": round(time.monotonic() - started, 3)}


def serve(inp, out) -> None:
    from . import child

    while True:
        try:
            request, blob = wire.read_frame(inp, MAX_REQUEST)
        except EOFError:
            return
        if request.get("type") == "ping":
            wire.write_frame(out, {"type": "pong", "pid": os.getpid()})
            continue
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            os.close(r)
            child.main(request, blob, w)
        os.close(w)
        del blob
        wire.write_frame(out, _relay(r, pid, request, out))


def main() -> None:
    # Frames own the real stdout; anything else printed to fd 1 goes to stderr.
    out_fd = os.dup(1)
    os.dup2(2, 1)
    out = os.fdopen(out_fd, "wb")
    preload()
    wire.write_frame(out, {"type": "ready", "pid": os.getpid()})
    serve(sys.stdin.buffer, out)


if __name__ == "__main__":
    main()
