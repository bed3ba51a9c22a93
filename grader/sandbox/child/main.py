"""The sandboxed child's entry point. Forked by the zygote, it locks itself down,
runs the submission on the case inputs it was handed (never the expected outputs)
and streams results back as wire frames. It decides nothing: every comparison
happens in the trusted judge."""
from __future__ import annotations

import os
import sys
from typing import Any

from .. import wire
from ..job import Job
from ..messages import Begin, CaseDone, Done, Hello, Load, ProbeDone, Sizes
from . import lockdown
from .instrument import WATCHED_BY_DEFAULT, Recorder
from .runner import Channel, Run, program_size


def main(job: Job, blob: bytes, out_fd: int) -> None:
    """Entry point in the forked child. Never returns."""
    status = 0
    try:
        _die_with_parent()
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        report = lockdown.apply_lockdown(job.cpu_seconds, job.memory_mb << 20, readable=list(job.readable),
                                         keep_fds=[out_fd], disabled=job.disabled_layers)
        out = os.fdopen(out_fd, "wb")
        chan = Channel(out, job.output_bytes)
        chan.send(Hello(tuple(report.active), report.unavailable))
        if job.strict and report.unavailable:
            return  # no submission code runs in a weaker sandbox than the judge was asked for
        _serve(job, blob, chan)
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


def _serve(job: Job, blob: bytes, chan: Channel) -> None:
    """Every phase starts with a ``begin`` frame, so that the judge can charge a kill or
    a crash to the phase that was running; ``done`` says that every phase finished."""
    _read_only_cache(job.xla_cache)
    _one_mlir_context()
    args, watched = job.args, tuple(dict.fromkeys((*WATCHED_BY_DEFAULT, *job.watch)))
    cases = {c.id: wire.decode_tree(c.input, blob) for c in job.cases}
    hidden = {c.id for c in job.cases if c.hidden}
    perturbations = job.probe_perturbations
    probe_ids = [cid for cid in job.probe_ids if cid in cases] if job.perturbed and perturbations else []

    chan.send(Begin("load"))
    passes = any(p[4] for p in perturbations)  # the perturbation lengthens a loop: see child/perturb.py
    recorder = Recorder(job.perturbed, passes=passes)
    run = Run(job.source, job.entry, watched, recorder)
    run.count_eager = bool(job.size_inputs)
    loaded = run.load()
    chan.send(Load(loaded))
    if loaded.status != "ok":
        return

    if job.size_inputs:
        # Before any case: these numbers are the submission's, and must not be able to
        # carry anything of a hidden input out of the child.
        chan.send(Begin("sizes"))
        probes = [(wire.decode_tree(p.input, blob), p.size) for p in job.size_inputs]
        sizes = [program_size(run, inputs, args, size) for inputs, size in probes]
        if any(s.ops is None for s in sizes):  # cannot be traced: count what it runs
            sizes = [program_size(run, inputs, args, size, eager=True) for inputs, size in probes]
        chan.send(Sizes(tuple(sizes)))

    clean: set[str] = set()
    for case_id, inputs in cases.items():
        chan.send(Begin("case", case_id))
        recorder.lines = case_id not in hidden
        outcome, out, args_after = run.call(inputs, args, public=case_id not in hidden)
        if chan.send_run(CaseDone(case_id, outcome, out, args_after)).status == "ok":
            clean.add(case_id)
    recorder.lines = False  # the probes below rerun cases that may be hidden

    chan.send(Begin("runtime"))
    chan.send(recorder.record(run.jit_report()))

    probe_ids = [cid for cid in probe_ids if cid in clean]
    if probe_ids:
        _probe(job, run, recorder, cases, probe_ids, chan)
    chan.send(Done())
    sys.stdout.flush()


def _probe(job: Job, run: Run, recorder: Recorder, cases: dict[str, Any], probe_ids: list[str],
           chan: Channel) -> None:
    """Rerun the probe cases under each perturbation. With jit every case ran compiled
    with the switch in place: probing is a rerun with it on. Otherwise each perturbation
    is a second module that applies it unconditionally."""
    args = job.args
    switch = run.mode == "jit" and not recorder.flag_blocked
    for k, params in enumerate(job.probe_perturbations):
        if not switch:
            watched = tuple(dict.fromkeys((*WATCHED_BY_DEFAULT, *job.watch)))
            probing = Recorder(job.perturbed, probe=True, params=params, passes=bool(params[4]))
            module = Run(job.source, job.entry, watched, probing)
            loaded = module.load()
        for cid in probe_ids:
            chan.send(Begin("probe", cid))
            if switch:
                outcome, out = run.probe(cases[cid], args, params)
            elif loaded.status == "ok":
                outcome, out, _ = module.call(cases[cid], args)
            else:
                outcome, out = loaded, None
            chan.send_run(ProbeDone(cid, k, outcome, out))


def _read_only_cache(path: str | None) -> None:
    """XLA's persistent cache, filled by the judge (see ``xla_cache``): read, never written."""
    if not path:
        return
    import jax

    jax.config.update("jax_compilation_cache_dir", path)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 1e9)  # no compile takes this long
