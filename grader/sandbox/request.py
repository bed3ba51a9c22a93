"""What the judge asks of the sandbox and what comes back, as typed data (judge side).

A ``Request`` carries the source, the entry and the typed case inputs (never an
expected output) and turns itself into one ``job.Job`` frame; a ``RunResult`` holds
what ``host`` built from the child's frames, each decoded and checked at the
boundary (``frames``), so that the judge's stages read it without checking again.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Literal

from ..problem.inputs import JaxInput
from . import wire
from .env import default_readable_paths
from .job import Job, JobCase, JobSize, perturbation
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
    perturbed: tuple[str, ...] = ()  # the transform chain the dependence probe perturbs
    probe: bool = False
    size_inputs: list[tuple[int, Any]] = field(default_factory=list)  # (batch size, typed input)
    cost: bool = False  # the judge puts each case's compile and run times on its report
    hidden: frozenset[str] = frozenset()  # case ids whose runs must leave no trace in the report
    strict: bool = False  # the child stops before loading the submission unless every layer is active
    probe_ids: tuple[str, ...] = ()  # cases the dependence probe reruns (those that ran clean)
    # Each probe case reruns once per perturbation: (factor, shift, lane frequency, lane phase, extra passes).
    probe_perturbations: tuple[tuple[float, ...], ...] = ()
    # A bound on the whole run, on top of the per-phase limits (feedback's time budget):
    # the child is killed when it passes, and the run says so (``over_budget``).
    wall_seconds: float | None = None

    def frame(self) -> tuple[dict, bytes]:
        nodes, blob = encode_inputs([inp for _, inp in self.cases] + [inp for _, inp in self.size_inputs])
        n = len(self.cases) * (1 + len(self.probe_perturbations)) + 2
        cache = readable_cache()
        job = Job(
            source=self.source, entry=self.entry, args=tuple(self.args),
            cases=tuple(JobCase(cid, cid in self.hidden, node) for (cid, _), node in zip(self.cases, nodes)),
            time_seconds=self.time_seconds, load_seconds=self.load_seconds,
            cpu_seconds=int(2 * (self.load_seconds + n * self.time_seconds)) + 10,
            memory_mb=self.memory_mb, output_bytes=self.output_kb * 1024, watch=tuple(self.watch),
            perturbed=tuple(self.perturbed),
            size_inputs=tuple(JobSize(size, node)
                              for (size, _), node in zip(self.size_inputs, nodes[len(self.cases):])),
            strict=self.strict, probe_ids=tuple(self.probe_ids),
            probe_perturbations=tuple(perturbation(f) for f in self.probe_perturbations[:MAX_PERTURBATIONS]),
            wall_seconds=self.wall_seconds,
            readable=tuple(default_readable_paths() + ([cache] if cache else [])), xla_cache=cache,
            disabled_layers=tuple(x.strip() for x in os.environ.get("JAXJUDGE_DISABLE_LAYERS", "").split(",")
                                  if x.strip()))
        return job.to_header(), blob
