"""What the judge asks of the sandbox and what comes back, as typed data (judge side).

A ``Request`` carries the source, the entry and the typed case inputs (never an
expected output) and turns itself into one ``job.Job`` frame; a ``RunResult`` holds
what ``host`` built from the child's frames, each decoded and checked at the
boundary (``frames``), so that the judge's stages read it without checking again.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from ..problem.inputs import JaxInput
from . import wire
from .env import default_readable_paths
from .job import Job, JobCase, JobSize, RunSpec, perturbation
from .messages import MAX_PERTURBATIONS, ProgramSize, RuntimeRecord
from .outcome import Cost, ErrorInfo, ProgramOps
from .xla_cache import readable_cache


def encode_inputs(inputs: list[Any], max_bytes: int = 1 << 30) -> tuple[list[dict], bytes]:
    """Typed inputs as wire nodes and one blob; JaxInput leaves travel as JAX arrays."""
    packer = wire.Packer(max_bytes, lambda o: ("jax", o.array) if type(o) is JaxInput else None)
    nodes = [packer.encode(inp) for inp in inputs]
    return nodes, packer.blob()


# How a case (or probe rerun) ended: the child's own word (``outcome.STATUSES``), or
# what the judge saw (killed over time, crashed, an output it could not decode, never run).
CaseStatus = Literal["ok", "error", "mle", "ole", "no_entry", "timeout", "crash", "bad_output", "not_run"]
# How loading the module ended: the child's word, or a kill the judge saw.
LoadStatus = Literal["ok", "error", "mle", "ole", "no_entry", "timeout", "crash", "not_run"]


@dataclass
class CaseRun:
    id: str
    status: CaseStatus = "not_run"
    time_ms: float | None = None
    output: Any = None
    args_after: Any = None
    error: ErrorInfo | None = None
    stdout: str = ""
    cost: Cost | None = None  # a case that ran under jit
    perturbation: int = 0  # a probe rerun: which of the request's probe perturbations
    # The size of the program that computed the output. For hidden cases it decides a
    # rule's pass or fail, and never appears in a report.
    program: ProgramOps | None = None


@dataclass
class RunResult:
    load_status: LoadStatus = "not_run"
    load_error: ErrorInfo | None = None
    load_stdout: str = ""
    layers: list[str] = field(default_factory=list)
    unavailable: dict[str, str] = field(default_factory=dict)
    cases: dict[str, CaseRun] = field(default_factory=dict)
    runtime: RuntimeRecord | None = None  # None: the record never came
    probes: list[CaseRun] = field(default_factory=list)  # reruns under the probe's perturbations
    sizes: list[ProgramSize] = field(default_factory=list)  # the program's size per batch size
    exit: dict = field(default_factory=dict)  # the zygote's ``frames.Exit``, as its header
    judge_error: str | None = None
    complete: bool = False  # the child said "done": every phase it was asked for finished
    phase_failures: dict[str, str] = field(default_factory=dict)  # sizes|runtime|probe|child -> how it ended
    # Wall seconds per phase, timed in the judge as the frames arrive: start (the fork and
    # the lockdown), load, sizes, case (every case), runtime, probe, exit (the child's end).
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def over_budget(self) -> bool:
        """Killed because the whole run passed its ``wall_seconds``: evidence of nothing."""
        return self.exit.get("killed") == "budget"


@dataclass(frozen=True, kw_only=True)
class Request(RunSpec):
    """A run as the judge states it: typed inputs, limits in the problem's units."""
    cases: list[tuple[str, Any]]  # (id, typed input)
    output_kb: int
    probe: bool = False
    size_inputs: list[tuple[int, Any]] = field(default_factory=list)  # (batch size, typed input)
    cost: bool = False  # the judge puts each case's compile and run times on its report
    hidden: frozenset[str] = frozenset()  # case ids whose runs must leave no trace in the report

    def frame(self) -> tuple[dict, bytes]:
        nodes, blob = encode_inputs([inp for _, inp in self.cases] + [inp for _, inp in self.size_inputs])
        n = len(self.cases) * (1 + len(self.probe_perturbations)) + 2
        cache = readable_cache()
        spec = {f.name: getattr(self, f.name) for f in fields(RunSpec)}
        job = Job(
            **{**spec, "args": tuple(self.args), "watch": tuple(self.watch), "perturbed": tuple(self.perturbed),
               "probe_ids": tuple(self.probe_ids),
               "probe_perturbations": tuple(perturbation(f) for f in self.probe_perturbations[:MAX_PERTURBATIONS])},
            cases=tuple(JobCase(cid, cid in self.hidden, node) for (cid, _), node in zip(self.cases, nodes)),
            cpu_seconds=int(2 * (self.load_seconds + n * self.time_seconds)) + 10,
            output_bytes=self.output_kb * 1024,
            size_inputs=tuple(JobSize(size, node)
                              for (size, _), node in zip(self.size_inputs, nodes[len(self.cases):])),
            readable=tuple(default_readable_paths() + ([cache] if cache else [])), xla_cache=cache,
            disabled_layers=tuple(x.strip() for x in os.environ.get("JAXJUDGE_DISABLE_LAYERS", "").split(",")
                                  if x.strip()))
        return job.to_header(), blob
