"""The judge's side of the sandbox: ``Sandbox`` owns one zygote process (see
``zygote``) and turns a ``Request`` into a ``RunResult``; ``Pool`` shares several.
Every frame from the child is decoded with the defensive decoder in ``wire``.
This process never imports JAX, so the judge holds no JAX state a submission
could reach.
"""
from __future__ import annotations

import signal
import subprocess
import sys
from typing import Any

from . import wire
from .env import child_env
from .request import CaseRun, Request, RunResult

_SIGNAL_TLE = {signal.SIGXCPU, signal.SIGKILL}


class Sandbox:
    """One warm zygote; ``run`` is serial. Use several for parallel grading."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def start(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            return
        self.proc = subprocess.Popen([sys.executable, "-m", "grader.sandbox.zygote"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=child_env(),
                                     start_new_session=True)
        header, _ = wire.read_frame(self.proc.stdout, 1 << 20)
        if header.get("type") != "ready":
            raise RuntimeError("the sandbox zygote did not start")

    def close(self) -> None:
        if self.proc is not None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=5)
            except Exception:
                self.proc.kill()
            self.proc = None

    def run(self, request: Request) -> RunResult:
        result = RunResult(cases={cid: CaseRun(cid) for cid, _ in request.cases})
        try:
            self.start()
            header, blob = request.frame()
            wire.write_frame(self.proc.stdin, header, blob)
            self._collect(result, request.output_kb * 1024)
        except (EOFError, OSError, RuntimeError, wire.WireError) as exc:
            self.close()
            result.judge_error = f"the sandbox failed: {exc}"
        return result

    def _collect(self, result: RunResult, cap: int) -> None:
        current: tuple[str, str | None] | None = None  # (phase, case id) that is running
        locked = False  # the child reported its lockdown: from here on submission code may run
        while True:
            header, blob = wire.read_frame(self.proc.stdout, cap + (2 << 20))
            kind = header.get("type")
            if kind == "exit":
                result.exit = header
                _finish(result, current, header, locked)
                return
            if kind == "done":
                result.complete = True
            if kind == "hello":
                locked = True
                result.layers = [str(x) for x in header.get("layers", [])][:20]
                result.unavailable = {str(k): str(v)[:300] for k, v in dict(header.get("unavailable", {})).items()}
            elif kind == "load":
                result.load_status = str(header.get("status"))
                result.load_error = _error(header)
                result.load_stdout = str(header.get("stdout", ""))[:20000]
            elif kind == "begin":
                phase = header.get("phase")
                current = ("case", str(header.get("case"))) if phase == "case" else (str(phase)[:20], None)
            elif kind == "case" and header.get("case") in result.cases:
                result.cases[header["case"]] = _case_run(header, blob)
                current = None
            elif kind == "runtime":
                jit = header.get("jit") if isinstance(header.get("jit"), dict) else {}
                result.runtime = {"calls": header.get("calls", {}), "nests": header.get("nests", []),
                                  "overflow": header.get("overflow") is True,
                                  "jit": {"mode": str(jit.get("mode", ""))[:10],
                                          "broke": str(jit["broke"])[:500] if jit.get("broke") else None}}
            elif kind == "sizes":
                result.sizes = [{"size": s.get("size") if type(s.get("size")) is int else None,
                                 "eqns": s.get("eqns") if type(s.get("eqns")) is int else None,
                                 "how": str(s.get("how", ""))[:10], "error": str(s.get("error", ""))[:100] or None}
                                for s in header.get("sizes", [])[:4] if isinstance(s, dict)]
            elif kind == "probe":
                probe = _case_run(header, blob)
                probe.factor = header.get("factor") if type(header.get("factor")) is int else -1
                result.probes.append(probe)


def _error(header: dict) -> dict | None:
    err = header.get("error")
    if not isinstance(err, dict):
        return None
    line = err.get("line")
    return {"type": str(err.get("type", ""))[:100], "message": str(err.get("message", ""))[:2000],
            "line": line if type(line) is int else None}


def _case_run(header: dict, blob: bytes) -> CaseRun:
    run = CaseRun(str(header.get("case")), str(header.get("status", "crash")))
    t = header.get("time_ms")
    run.time_ms = float(t) if type(t) in (int, float) else None
    run.error = _error(header)
    run.stdout = str(header.get("stdout", ""))[:20000]
    cost = header.get("cost")
    if isinstance(cost, dict) and all(type(cost.get(k)) in (int, float) for k in ("compile_ms", "run_ms")):
        run.cost = {"compile_ms": float(cost["compile_ms"]), "run_ms": float(cost["run_ms"])}
    program = header.get("program")
    if isinstance(program, dict) and type(program.get("ops")) is int and program.get("how") in ("traced", "eager"):
        run.program = {"ops": program["ops"], "how": program["how"]}
    if run.status == "ok":
        try:
            run.output = wire.decode_tree(header.get("output"), blob)
            run.args_after = wire.decode_tree(header.get("args"), blob) if "args" in header else None
        except (wire.WireError, ValueError, TypeError) as exc:
            run.status, run.output = "bad_output", None
            run.error = {"type": "WireError", "message": str(exc)[:500], "line": None}
    return run


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


class Pool:
    """Several warm zygotes shared by worker threads: ``map`` grades in parallel,
    each job holding one sandbox at a time. Zygotes start lazily, in parallel."""

    def __init__(self, workers: int) -> None:
        import queue

        self.workers = max(1, workers)
        self.free: "queue.Queue[Sandbox]" = queue.Queue()
        for _ in range(self.workers):
            self.free.put(Sandbox())

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        while not self.free.empty():
            self.free.get().close()

    def start_all(self) -> None:
        """Start every zygote now, in parallel, instead of at its first job. A zygote
        that fails to start is left to fail (and be reported) at its first job."""
        from concurrent.futures import ThreadPoolExecutor

        boxes = list(self.free.queue)

        def start(box: Sandbox) -> None:
            try:
                box.start()
            except (OSError, RuntimeError, EOFError, wire.WireError):
                box.close()

        with ThreadPoolExecutor(len(boxes) or 1) as ex:
            list(ex.map(start, boxes))

    def submit_all(self, fn, items):
        """Yield ``fn(sandbox, item)`` results as they complete (unordered)."""
        from concurrent.futures import ThreadPoolExecutor, as_completed

        def job(item):
            box = self.free.get()
            try:
                return fn(box, item)
            finally:
                self.free.put(box)

        with ThreadPoolExecutor(self.workers) as ex:
            futures = [ex.submit(job, item) for item in items]
            for fut in as_completed(futures):
                yield fut.result()
