"""The sandboxed child's entry point. Forked by the zygote, it locks itself down,
runs the submission on the case inputs it was handed (never the expected outputs)
and streams results back as wire frames. It decides nothing: every comparison
happens in the trusted judge."""
from __future__ import annotations

import os
import sys
from typing import Any

from .. import wire
from . import lockdown
from ..probe import NEUTRAL
from .instrument import WATCHED_BY_DEFAULT, Recorder
from .runner import Channel, Run, program_size


def main(request: dict, blob: bytes, out_fd: int) -> None:
    """Entry point in the forked child. Never returns."""
    status = 0
    try:
        _die_with_parent()
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        report = lockdown.apply_lockdown(
            int(request["cpu_seconds"]), int(request["memory_mb"]) << 20,
            readable=request["readable"], keep_fds=[out_fd], disabled=request.get("disabled_layers", ()))
        out = os.fdopen(out_fd, "wb")
        chan = Channel(out, int(request["output_bytes"]))
        chan.send({"type": "hello", "layers": list(report.active), "unavailable": report.unavailable})
        if request.get("strict") and report.unavailable:
            return  # no submission code runs in a weaker sandbox than the judge was asked for
        _serve(request, blob, chan)
    except BaseException:  # the judge's own failure inside the child
        status = 70
    finally:
        os._exit(status)


def _die_with_parent() -> None:
    """Should the zygote die (say, with the judge), the child dies too instead of running
    on to its CPU limit unobserved. The zygote is single-threaded, so the parent thread
    that PR_SET_PDEATHSIG watches is the zygote itself."""
    import ctypes
    import signal

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() == 1:  # the zygote died before the call
            os._exit(70)
    except (OSError, AttributeError):
        pass  # not Linux: the zygote's own watch of the judge still applies


def _one_mlir_context() -> None:
    """JAX builds a fresh MLIR context, loading every dialect (about 6 ms), for each
    lowering. Code that runs eagerly lowers every primitive separately: a submission
    that cannot be jitted paid about 110 ms per input shape for contexts alone. A
    child lives for one submission, so one context serves all of its lowerings; the
    programs, and so the outputs, are the same bit for bit."""
    try:
        from jax._src.interpreters import (
            mlir,  # private: anything may change, hence the guards
        )
    except ImportError:
        return
    make = getattr(mlir, "make_ir_context", None)
    if not callable(make):
        return
    shared: list[Any] = []

    def one_context() -> Any:
        if not shared:
            shared.append(make())
        return shared[0]

    mlir.make_ir_context = one_context


def _serve(request: dict, blob: bytes, chan: Channel) -> None:
    """Every phase starts with a ``begin`` frame, so that the judge can charge a kill or
    a crash to the phase that was running; ``done`` says that every phase finished."""
    _read_only_cache(request.get("xla_cache"))
    _one_mlir_context()
    args, entry = tuple(request["args"]), request["entry"]
    watched = tuple(dict.fromkeys((*WATCHED_BY_DEFAULT, *request["watch"])))
    rule = tuple(request.get("poison", ()))
    factors = [_params(f) for f in request.get("probe_factors", [])][:64]
    cases = {c["id"]: wire.decode_tree(c["input"], blob) for c in request["cases"]}
    hidden = {c["id"] for c in request["cases"] if c.get("hidden")}
    probe_ids = [cid for cid in request.get("probe_ids", []) if cid in cases] if rule and factors else []

    chan.send({"type": "begin", "phase": "load"})
    recorder = Recorder(rule)
    run = Run(request["source"], entry, watched, recorder)
    run.cost = bool(request.get("cost"))
    run.count_eager = bool(request.get("size_probe"))
    loaded = run.load()
    chan.send({"type": "load", **loaded})
    if loaded["status"] != "ok":
        return

    if request.get("size_probe"):
        # Before any case: these numbers are the submission's, and must not be able to
        # carry anything of a hidden input out of the child.
        chan.send({"type": "begin", "phase": "sizes"})
        probes = [(wire.decode_tree(p["input"], blob), int(p["size"])) for p in request["size_probe"]]
        sizes = [program_size(run, inputs, args, size) for inputs, size in probes]
        if any(s["eqns"] is None for s in sizes):  # cannot be traced: count what it runs
            sizes = [program_size(run, inputs, args, size, eager=True) for inputs, size in probes]
        chan.send({"type": "sizes", "sizes": sizes})

    clean: set[str] = set()
    for case_id, inputs in cases.items():
        chan.send({"type": "begin", "phase": "case", "case": case_id})
        recorder.lines = case_id not in hidden
        result, out, args_after = run.call(inputs, args, public=case_id not in hidden)
        trees = {"output": out, "args": args_after} if result["status"] == "ok" else None
        message = {"type": "case", "case": case_id, **result}
        chan.send(message, trees)
        if message.get("status") == "ok":
            clean.add(case_id)
    recorder.lines = False  # the probes below rerun cases that may be hidden

    chan.send({"type": "begin", "phase": "runtime"})
    chan.send({"type": "runtime", **recorder.report(), "jit": run.jit_report()})

    probe_ids = [cid for cid in probe_ids if cid in clean]
    if probe_ids:
        _probe(request, run, recorder, cases, probe_ids, factors, chan)
    chan.send({"type": "done"})
    sys.stdout.flush()


def _params(value: Any) -> tuple[float, ...]:
    """One perturbation of the probe (see ``instrument.PARAMS``); missing ones neutral."""
    values = [float(v) for v in value][:len(NEUTRAL)] if isinstance(value, list) else [float(value)]
    return tuple(values) + NEUTRAL[len(values):]


def _probe(request: dict, run: Run, recorder: Recorder, cases: dict, probe_ids: list[str],
           factors: list[tuple[float, ...]], chan: Channel) -> None:
    """Rerun the probe cases under each perturbation. With jit every case ran compiled
    with the switch in place: probing is a rerun with it on. Otherwise each perturbation
    is a second module that applies it unconditionally."""
    args, rule = tuple(request["args"]), tuple(request["poison"])
    switch = run.mode == "jit" and not recorder.flag_blocked
    for k, params in enumerate(factors):
        if not switch:
            watched = tuple(dict.fromkeys((*WATCHED_BY_DEFAULT, *request["watch"])))
            module = Run(request["source"], request["entry"], watched, Recorder(rule, probe=True, params=params))
            loaded = module.load()
        for cid in probe_ids:
            chan.send({"type": "begin", "phase": "probe", "case": cid})
            if switch:
                result, out = run.probe(cases[cid], args, params)
            elif loaded["status"] == "ok":
                result, out, _ = module.call(cases[cid], args)
            else:
                result, out = loaded, None
            chan.send({"type": "probe", "case": cid, "factor": k, **result},
                      {"output": out} if result["status"] == "ok" else None)


def _read_only_cache(path: str | None) -> None:
    """XLA's persistent cache, filled by the judge (see ``xla_cache``): read, never written."""
    if not path:
        return
    import jax

    jax.config.update("jax_compilation_cache_dir", path)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 1e9)  # no compile takes this long
