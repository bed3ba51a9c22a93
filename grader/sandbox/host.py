"""The judge's side of the sandbox: ``Sandbox`` owns one zygote process (see
``zygote``) and turns a ``Request`` into a ``RunResult``; ``Pool`` shares several.
Every frame is decoded, through the table of ``frames``, into its message or refused
(the run then ends as the judge's error, ``judge_error``); what this module records
is therefore already checked. This process never imports JAX, so the judge holds no
JAX state a submission could reach.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from typing import IO, Any, Callable, Iterator, Literal

from . import wire
from .env import child_env
from .frames import RUN, STARTUP, Exit, UnknownKind, read_message
from .messages import Begin, CaseDone, Done, Hello, Load, ProbeDone, RuntimeRecord, Sizes
from .outcome import ChildOutcome
from .request import CaseRun, Request, RunResult

_SIGNAL_TLE = {signal.SIGXCPU, signal.SIGKILL}


class Sandbox:
    """One warm zygote; ``run`` is serial. Use several for parallel grading."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def start(self) -> subprocess.Popen[bytes]:
        if self.proc is not None and self.proc.poll() is None:
            return self.proc
        self.proc = subprocess.Popen([sys.executable, "-m", "grader.sandbox.zygote"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=child_env(),
                                     start_new_session=True)
        try:
            read_message(_pipe(self.proc.stdout), STARTUP)
        except UnknownKind:
            raise RuntimeError("the sandbox zygote did not start") from None
        return self.proc

    def close(self) -> None:
        if self.proc is not None:
            try:
                _pipe(self.proc.stdin).close()
                self.proc.wait(timeout=5)
            except Exception:
                self.proc.kill()
            self.proc = None

    def stop(self) -> None:
        """End the run in progress from another thread: the zygote and the child it forked
        (one process group, the zygote's session) are killed, ``run`` returns the judge's
        error, and the next run starts a new zygote."""
        proc = self.proc
        if proc is not None and proc.poll() is None:  # not yet reaped: its pid is still ours
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def run(self, request: Request) -> RunResult:
        result = RunResult(cases={cid: CaseRun(cid) for cid, _ in request.cases})
        try:
            proc = self.start()
            header, blob = request.frame()
            wire.write_frame(_pipe(proc.stdin), header, blob)
            _Collector(result, time.perf_counter()).collect(_pipe(proc.stdout), request.output_kb * 1024)
        except (EOFError, OSError, RuntimeError, wire.WireError) as exc:
            self.close()
            result.judge_error = f"the sandbox failed: {exc}"
        if request.strict and result.unavailable:
            result.judge_error = ("strict sandbox: refusing to grade without every layer; unavailable: " +
                                  ", ".join(f"{k} ({v})" for k, v in result.unavailable.items()))
        return result


def _pipe(stream: IO[bytes] | None) -> IO[bytes]:
    if stream is None:  # never: the zygote is started with both pipes
        raise OSError("the sandbox zygote has no pipe")
    return stream


class _Collector:
    """One run's messages, applied in the order they came."""

    def __init__(self, result: RunResult, sent: float | None = None) -> None:
        self.result = result
        self.current: tuple[str, str | None] | None = None  # (phase, case id) that is running
        self.locked = False  # the child reported its lockdown: from here on submission code may run
        # The time since ``clock`` is charged to the phase ``timed``.
        self.clock, self.timed = time.perf_counter() if sent is None else sent, "start"

    def collect(self, stream: IO[bytes], output_bytes: int) -> None:
        while True:
            message = read_message(stream, RUN, output_bytes)
            now = time.perf_counter()
            seconds = self.result.seconds
            seconds[self.timed] = seconds.get(self.timed, 0.0) + now - self.clock
            self.clock = now
            if isinstance(message, Begin):
                self.timed = message.phase
            elif isinstance(message, Done):
                self.timed = "exit"
            if isinstance(message, Exit):
                self.result.exit = message.to_header()
                _finish(self.result, self.current, self.result.exit, self.locked)
                _unfinished(self.result)
                return
            _APPLY[type(message)](self, message)

    def hello(self, m: Hello) -> None:
        self.locked = True
        self.result.layers, self.result.unavailable = list(m.layers), dict(m.unavailable)

    def load(self, m: Load) -> None:
        status = m.outcome.status
        assert status != "bad_output"  # a load frame carries no output to decode
        self.result.load_status, self.result.load_stdout = status, m.outcome.stdout
        self.result.load_error = m.outcome.error

    def begin(self, m: Begin) -> None:
        self.current = ("case", m.case) if m.phase == "case" else (m.phase, None)

    def case(self, m: CaseDone) -> None:
        if m.case in self.result.cases:  # a case the job did not name is no evidence of anything
            self.result.cases[m.case] = _case_run(m.case, m.outcome, m.output, m.args)
            self.current = None

    def sizes(self, m: Sizes) -> None:
        self.result.sizes = list(m.sizes)

    def runtime(self, m: RuntimeRecord) -> None:
        self.result.runtime = m

    def probe(self, m: ProbeDone) -> None:
        run = _case_run(m.case, m.outcome, m.output, None)
        run.perturbation = m.perturbation
        self.result.probes.append(run)

    def done(self, m: Done) -> None:
        self.result.complete = True


_APPLY: dict[type, Callable[[_Collector, Any], None]] = {
    Hello: _Collector.hello, Load: _Collector.load, Begin: _Collector.begin, CaseDone: _Collector.case,
    Sizes: _Collector.sizes, RuntimeRecord: _Collector.runtime, ProbeDone: _Collector.probe, Done: _Collector.done}


def _case_run(case: str, outcome: ChildOutcome, output: Any, args: Any) -> CaseRun:
    return CaseRun(case, outcome.status, outcome.time_ms, output, args, outcome.error, outcome.stdout, outcome.cost,
                   program=outcome.program)


def _finish(result: RunResult, current: tuple[str, str | None] | None, exit_info: dict,
            locked: bool = True) -> None:
    """Attribute a kill or crash to the phase or case that was running. The child's own
    failure (exit 70) is the judge's only before the lockdown; after it, a submission
    can provoke it (exhaust memory, then return), so it counts as that phase's crash."""
    killed, sig, code = exit_info.get("killed"), exit_info.get("signal"), exit_info.get("code")
    if killed is None and sig is None and code == 0:
        return
    # The zygote's own reason comes first: it ends the child with SIGKILL whatever the
    # reason, so the signal alone means a time limit only when the zygote named none.
    status: Literal["ole", "timeout", "crash"]
    if killed == "ole":
        status = "ole"
    elif killed in ("timeout", "budget") or (killed is None and sig in _SIGNAL_TLE):
        status = "timeout"
    elif code == 70 and not locked:
        result.judge_error = "the sandboxed child failed before running the submission"
        return
    else:
        status = "crash"
    phase, case = current or ("child", None)
    if result.load_status == "not_run":
        result.load_status = status
    elif phase == "case" and case in result.cases:
        result.cases[case].status = status
    else:
        result.phase_failures[phase if phase in ("sizes", "runtime", "probe") else "child"] = status


def _unfinished(result: RunResult) -> None:
    """A child that loaded the submission, ran every case cleanly and then stopped without
    saying ``done`` has left evidence missing for no reason it gave: never a pass."""
    if result.load_status == "ok" and not result.complete and not result.phase_failures \
            and all(c.status == "ok" for c in result.cases.values()):
        result.phase_failures["child"] = "crash"


class Pool:
    """Several warm zygotes shared by worker threads: ``submit_all`` grades in
    parallel, each job holding one sandbox at a time; ``borrow`` lends one for a block,
    ``take``/``give`` for as long as a caller (a service worker) runs. Zygotes start
    lazily, in parallel."""

    def __init__(self, workers: int) -> None:
        import queue

        self.workers = max(1, workers)
        self.sandboxes: tuple[Sandbox, ...] = tuple(Sandbox() for _ in range(self.workers))  # free or taken
        self._free: "queue.Queue[Sandbox]" = queue.Queue()
        for sandbox in self.sandboxes:
            self._free.put(sandbox)

    def take(self) -> Sandbox:
        """A sandbox for the caller alone, once one is free; hand it back with ``give``."""
        return self._free.get()

    def give(self, sandbox: Sandbox) -> None:
        self._free.put(sandbox)

    @contextmanager
    def borrow(self) -> Iterator[Sandbox]:
        """A sandbox for the ``with`` block, given back when it ends."""
        sandbox = self.take()
        try:
            yield sandbox
        finally:
            self.give(sandbox)

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        for sandbox in self.sandboxes:
            sandbox.close()

    def start_all(self) -> None:
        """Start every zygote now, in parallel, instead of at its first job. A zygote
        that fails to start is left to fail (and be reported) at its first job."""
        from concurrent.futures import ThreadPoolExecutor

        boxes = list(self.sandboxes)

        def start(sandbox: Sandbox) -> None:
            try:
                sandbox.start()
            except (OSError, RuntimeError, EOFError, wire.WireError):
                sandbox.close()

        with ThreadPoolExecutor(len(boxes) or 1) as ex:
            list(ex.map(start, boxes))

    def map_in_order(self, fn, items):
        """Yield ``fn(sandbox, item)`` for each item in its order, computed in parallel."""
        return self.submit_all(fn, items, ordered=True)

    def submit_all(self, fn, items, ordered: bool = False):
        """Yield ``fn(sandbox, item)`` results as they complete (unordered), or with
        ``ordered`` in the items' order."""
        from concurrent.futures import ThreadPoolExecutor, as_completed

        def job(item):
            with self.borrow() as sandbox:
                return fn(sandbox, item)

        with ThreadPoolExecutor(self.workers) as ex:
            futures = [ex.submit(job, item) for item in items]
            for fut in futures if ordered else as_completed(futures):
                yield fut.result()
