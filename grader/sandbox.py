"""Stage 4: run a submission on case inputs, out of process (trusted side).

``Sandbox`` owns one zygote process (see ``zygote.py``) and turns a request
into a ``RunResult`` of per-case outcomes. It decodes every frame with the
defensive decoder in ``wire`` and never imports JAX itself, so the judge's
own interpreter holds no JAX state a submission could reach.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import lockdown, wire
from .compile_cache import readable_cache
from .inputs import JaxInput

_SIGNAL_TLE = {signal.SIGXCPU, signal.SIGKILL}


@dataclass
class CaseRun:
    id: str
    status: str = "not_run"  # ok | error | mle | ole | timeout | crash | bad_output | not_run
    time_ms: float | None = None
    output: Any = None
    args_after: Any = None
    error: dict | None = None
    stdout: str = ""
    cost: dict | None = None  # compile_ms, run_ms (when asked for)


@dataclass
class RunResult:
    load_status: str = "not_run"  # ok | error | mle | no_entry | timeout | crash | not_run
    load_error: dict | None = None
    load_stdout: str = ""
    layers: list[str] = field(default_factory=list)
    unavailable: dict[str, str] = field(default_factory=dict)
    cases: dict[str, CaseRun] = field(default_factory=dict)
    runtime: dict | None = None
    probes: list[CaseRun] = field(default_factory=list)
    sizes: list[dict] = field(default_factory=list)  # traced program size per batch size
    exit: dict = field(default_factory=dict)
    judge_error: str | None = None


@dataclass
class Request:
    source: str
    entry: str
    args: tuple[str, ...]
    cases: list[tuple[str, Any]]  # (id, typed input)
    time_seconds: float
    load_seconds: float
    memory_mb: int
    output_kb: int
    watch: tuple[str, ...] = ()
    poison: tuple[str, ...] = ()
    probe: bool = False
    size_probe: list[tuple[int, Any]] = field(default_factory=list)  # (batch size, typed input)
    cost: bool = False  # time a second call per case, to split compile from run time
    hidden: frozenset[str] = frozenset()  # case ids whose runs must leave no trace in the report
    strict: bool = False  # the child stops before loading the submission unless every layer is active
    probe_cases: int = 1  # clean cases a probe run as a second module reruns (the jit switch reruns up to 3)

    def frame(self) -> tuple[dict, bytes]:
        packer = wire.Packer(1 << 30, lambda o: ("jax", o.array) if type(o) is JaxInput else None)
        cases = [{"id": cid, "hidden": cid in self.hidden, "input": packer.encode(inp)} for cid, inp in self.cases]
        sizes = [{"size": n, "input": packer.encode(inp)} for n, inp in self.size_probe]
        n = len(self.cases) + 2
        cache = readable_cache()
        header = {
            "type": "run", "source": self.source, "entry": self.entry, "args": list(self.args), "cases": cases,
            "time_seconds": self.time_seconds, "load_seconds": self.load_seconds,
            "cpu_seconds": int(2 * (self.load_seconds + n * self.time_seconds)) + 10,
            "memory_mb": self.memory_mb, "output_bytes": self.output_kb * 1024,
            "watch": list(self.watch), "poison": list(self.poison), "probe": self.probe, "size_probe": sizes,
            "strict": self.strict, "probe_cases": self.probe_cases,
            "cost": self.cost,
            "readable": lockdown.default_readable_paths() + ([cache] if cache else []),
            "xla_cache": cache,
            "disabled_layers": [x.strip() for x in os.environ.get("JAXJUDGE_DISABLE_LAYERS", "").split(",") if x.strip()],
        }
        return header, packer.blob()


# The CPU compiler's older (non-MLIR) fusion emitters compile the small programs a grade
# is made of in about half the time; per submission of per_example_grad_clipping (39 cases,
# 8 shapes, dependence probe) the child's run fell from 3.9 s to 2.7 s, and every verdict,
# validate check and largest error stayed the same (see bench/). One code-generation thread
# instead of a split into 32 parallel parts, and LLVM without its most expensive passes, cut
# the compile's CPU time by about a fifth (it is a batch worker's share of the machine, not
# its wall time alone, that counts); every reference output of every problem stayed the
# same bit for bit. (LLVM -O0 would save more, but changes results in the last bits.)
# XLA aborts the process on a flag it does not know, so these go only to the jaxlib
# releases they were checked on.
FAST_COMPILE = ("--xla_cpu_use_fusion_emitters=false --xla_cpu_parallel_codegen_split_count=1 "
                "--xla_llvm_disable_expensive_passes=true")
FAST_COMPILE_CHECKED = ("0.10.",)


def default_xla_flags() -> str:
    from importlib.metadata import PackageNotFoundError, version

    flags = "--xla_cpu_multi_thread_eigen=false"  # one compute thread: the child has one core's share
    try:
        jaxlib = version("jaxlib")
    except PackageNotFoundError:
        return flags
    return f"{flags} {FAST_COMPILE}" if jaxlib.startswith(FAST_COMPILE_CHECKED) else flags


def _package_root() -> str:
    return str(Path(__file__).resolve().parent.parent)


def child_env() -> dict[str, str]:
    """The environment of every process that compiles for grading (zygote, cache filler):
    the same XLA flags, so that compiled programs and cache keys agree."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_package_root(), env.get("PYTHONPATH")) if p)
    env.setdefault("JAX_PLATFORMS", "cpu")
    env.setdefault("XLA_FLAGS", default_xla_flags())
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    return env


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
        self.proc = subprocess.Popen([sys.executable, "-m", "grader.zygote"], stdin=subprocess.PIPE,
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
        current: str | None = None
        locked = False  # the child reported its lockdown: from here on submission code may run
        while True:
            header, blob = wire.read_frame(self.proc.stdout, cap + (2 << 20))
            kind = header.get("type")
            if kind == "exit":
                result.exit = header
                _finish(result, current, header, locked)
                return
            if kind == "hello":
                locked = True
                result.layers = [str(x) for x in header.get("layers", [])][:20]
                result.unavailable = {str(k): str(v)[:300] for k, v in dict(header.get("unavailable", {})).items()}
            elif kind == "load":
                result.load_status = str(header.get("status"))
                result.load_error = _error(header)
                result.load_stdout = str(header.get("stdout", ""))[:20000]
            elif kind == "begin":
                current = str(header.get("case"))
            elif kind == "case" and header.get("case") in result.cases:
                result.cases[header["case"]] = _case_run(header, blob)
                current = None
            elif kind == "runtime":
                jit = header.get("jit") if isinstance(header.get("jit"), dict) else {}
                result.runtime = {"calls": header.get("calls", {}), "nests": header.get("nests", []),
                                  "jit": {"mode": str(jit.get("mode", ""))[:10],
                                          "traces": jit.get("traces") if type(jit.get("traces")) is int else None,
                                          "signatures": jit.get("signatures") if type(jit.get("signatures")) is int
                                          else None,
                                          "broke": str(jit["broke"])[:500] if jit.get("broke") else None}}
            elif kind == "sizes":
                result.sizes = [{"size": int(s.get("size", 0)), "eqns": s.get("eqns"),
                                 "error": str(s.get("error", ""))[:300] or None}
                                for s in header.get("sizes", [])[:4] if isinstance(s, dict)]
            elif kind == "probe":
                result.probes.append(_case_run(header, blob))
                current = None


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
    if run.status == "ok":
        try:
            run.output = wire.decode_tree(header.get("output"), blob)
            run.args_after = wire.decode_tree(header.get("args"), blob) if "args" in header else None
        except (wire.WireError, ValueError, TypeError) as exc:
            run.status, run.output = "bad_output", None
            run.error = {"type": "WireError", "message": str(exc)[:500], "line": None}
    return run


def _finish(result: RunResult, current: str | None, exit_info: dict, locked: bool = True) -> None:
    """Attribute a kill or crash to the phase or case that was running. The child's own
    failure (exit 70) is the judge's only before the lockdown; after it, a submission
    can provoke it (exhaust memory, then return), so it counts as that phase's crash."""
    killed, sig, code = exit_info.get("killed"), exit_info.get("signal"), exit_info.get("code")
    if killed is None and sig is None and code == 0:
        return
    if killed == "timeout" or sig in _SIGNAL_TLE:
        status = "timeout"
    elif killed == "ole":
        status = "ole"
    elif code == 70 and not locked:
        result.judge_error = "the sandboxed child failed before running the submission"
        return
    else:
        status = "crash"
    if result.load_status == "not_run":
        result.load_status = status
    elif current == "probe":
        result.probes.append(CaseRun("probe", status))
    elif current in result.cases:
        result.cases[current].status = status


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
