"""The zygote, where the sandbox run starts. A trusted process that has imported JAX (but never
started a backend, so forking stays safe) and forks one fresh child per
request. It relays the child's frames to the judge and owns the wall clock:
a case that overruns, or a child that floods the channel, is SIGKILLed.

Run as ``python -m grader.sandbox.zygote``; requests arrive as wire frames on stdin.
It never runs submission code itself: only its forked children do (``child``).
"""
from __future__ import annotations

import gc
import json
import os
import select
import signal
import sys
import time
from typing import BinaryIO

from . import wire
from .frames import CHILD_KINDS, Exit, Ready, output_cap
from .job import Job
from .messages import Begin

MAX_REQUEST = 256 << 20
STARTUP_SLACK = 10.0  # lockdown and the first import inside the child
_UNREAPED: list[int] = []
NO_WARM_UP = "JAXJUDGE_ZYGOTE_NO_WARM_UP"


def _reap() -> None:
    while _UNREAPED:
        os.waitpid(_UNREAPED.pop(), 0)


def preload() -> None:
    """Everything a child needs, imported once here so that children start warm."""
    import jax  # noqa: F401
    import jax.flatten_util  # noqa: F401
    import jax.numpy  # noqa: F401
    import jax.scipy.special  # noqa: F401
    import ml_dtypes  # noqa: F401
    import numpy  # noqa: F401

    from .allowlist import ALLOWED
    from .child import instrument, lockdown, main  # noqa: F401
    from .child.namespace import ModuleTable

    try:
        import pyseccomp  # noqa: F401
    except Exception:
        pass
    # Build the allow-listed module views once so their lazy submodules load now.
    ModuleTable().get("jax")
    for name in ALLOWED:
        ModuleTable().get(name)


def _warm_tracing() -> None:
    """Fill, once here instead of in every child, what JAX sets up on its first
    trace and its first lowering: trace a small vmap-of-grad program on abstract
    values (about 20 ms of each child's first case) and build one MLIR context
    (about 40 ms). Lowering or compiling would start the XLA backend and its
    threads, after which forking is unsafe; ``main`` checks that no thread was
    started and otherwise restarts the zygote without this warm-up."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    def loss(p, x, y):
        err = jnp.dot(x, p["w"]) + p["b"] - y
        return jnp.mean(jnp.maximum(0.5 * err * err, 0.0))

    def program(p, x, y):
        grads = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(p, x, y)
        norms = jnp.sqrt(jnp.sum(grads["w"] ** 2, axis=1) + grads["b"] ** 2)
        return jax.tree_util.tree_map(lambda g: jnp.mean(g, axis=0), grads), norms / jnp.maximum(1.0, norms)

    f32 = np.float32
    spec = jax.ShapeDtypeStruct
    try:
        jax.make_jaxpr(program)({"w": spec((3,), f32), "b": spec((), f32)}, spec((4, 3), f32), spec((4,), f32))
        from jax._src.interpreters import (
            mlir,  # private: anything may change, hence the guard
        )

        with mlir.make_ir_context(), mlir.ir.Location.unknown():
            mlir.ir.Module.create()
    except Exception:  # a warm-up only; children trace on their own anyway
        pass


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0


class JudgeGone(Exception):
    """The judge closed the request pipe while a child ran: the judge died."""


def _relay(r: int, pid: int, job: Job, out: BinaryIO, judge: int | None = None) -> Exit:
    """Relay the child's frames to the judge until it is done or dies; kill it when a
    phase overruns, a frame passes the output cap or breaks the protocol."""
    per_case, load = job.time_seconds, job.load_seconds
    cap = output_cap(job.output_bytes)
    deadline = time.monotonic() + load + STARTUP_SLACK
    phase, killed, finished = "load", None, False
    buf = bytearray()
    head = wire.HEAD
    started = time.monotonic()
    budget = started + max(0.0, job.wall_seconds) if job.wall_seconds is not None else float("inf")
    while killed is None:
        now = time.monotonic()
        if now >= budget:
            killed = "budget"
            break
        left = min(deadline, budget) - now
        if left <= 0:
            killed = "timeout"
            break
        ready, _, _ = select.select([r] if judge is None else [r, judge], [], [], left)
        if not ready:
            continue
        if judge in ready:  # the judge sends nothing while a child runs: this is its end
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise JudgeGone()
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
                frame = json.loads(bytes(buf[head.size:head.size + hlen]))
                kind = frame.get("type")
                if kind not in CHILD_KINDS:  # a child that claims the zygote's exit, say
                    raise ValueError(kind)
                if kind == "begin":
                    phase = Begin.decode(frame).phase
            except (ValueError, AttributeError, TypeError, RecursionError, wire.WireError):
                killed = "protocol"
                break
            out.write(bytes(buf[:total]))
            out.flush()
            del buf[:total]
            if kind == "done":
                finished = True
            # Loading the module has its own limit; every other phase (a case, the
            # reference's probe, the size measurement, the record) has the per-case one.
            deadline = time.monotonic() + (load if kind == "begin" and phase == "load" else per_case)
        if finished:
            break
    if killed is not None:
        os.kill(pid, signal.SIGKILL)
    os.close(r)
    if finished and killed is None:
        # Every result is in. The child's own exit (tearing down a few hundred MB of
        # address space, ~40 ms) overlaps the judge's work; it is reaped before the next fork.
        os.kill(pid, signal.SIGKILL)
        _UNREAPED.append(pid)
        return Exit(None, "done", 0, None, wall_s=round(time.monotonic() - started, 3))
    _, status, usage = os.wait4(pid, 0)
    return Exit(killed, phase, os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
                usage.ru_maxrss, round(usage.ru_utime + usage.ru_stime, 3), round(time.monotonic() - started, 3))


def serve(inp: BinaryIO, out: BinaryIO) -> None:
    from .child import main as child

    while True:
        try:
            header, blob = wire.read_frame(inp, MAX_REQUEST)
        except EOFError:
            _reap()
            return
        job = Job.decode(header)  # the judge's own frame: one that fails to decode is a bug, and ends the zygote
        _reap()
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            os.close(r)
            child.main(job, blob, w)
        os.close(w)
        del blob
        try:
            wire.write_frame(out, _relay(r, pid, job, out, inp.fileno()).to_header())
        except JudgeGone:
            return


def main() -> None:
    # Frames own the real stdout; anything else printed to fd 1 goes to stderr.
    out_fd = os.dup(1)
    os.dup2(2, 1)
    out = os.fdopen(out_fd, "wb")
    preload()
    if os.environ.get(NO_WARM_UP) != "1":
        before = _threads()
        _warm_tracing()
        if _threads() != before:  # a JAX release whose warm-up starts threads: forking would be unsafe
            os.dup2(out_fd, 1)
            os.environ[NO_WARM_UP] = "1"
            os.execv(sys.executable, [sys.executable, "-m", "grader.sandbox.zygote"])
    # Everything loaded so far lives as long as the zygote: the garbage collector of
    # each child would otherwise walk (and so copy, page by page) all of it; one such
    # collection cost a child about 100 ms.
    gc.collect()
    gc.freeze()
    wire.write_frame(out, Ready(os.getpid()).to_header())
    serve(sys.stdin.buffer, out)


if __name__ == "__main__":
    main()
