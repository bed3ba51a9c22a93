"""The job: what the judge asks one child to run, as the ``run`` frame carries it.

Shared by the three processes. A run's own fields are declared once, in ``RunSpec``:
the judge's ``request.Request`` and the ``Job`` both extend it. The judge builds a
``Job`` (``request.Request.frame``), the zygote decodes it once and takes its clock
from it, and hands the decoded job to the child it forks (``child/main.py``). Case inputs stay wire nodes here, decoded
into arrays only in the child; expected outputs are never part of a job. No JAX here.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar

from .fields import INT32, Fields, texts
from .messages import MAX_ID, MAX_NAME, MAX_PERTURBATIONS
from .probe import NEUTRAL
from .wire import WireError

MAX_CASES = 100_000
MAX_PATHS = 10_000


@dataclass(frozen=True)
class JobCase:
    id: str
    hidden: bool  # its runs must leave no trace in the report (no lines in the record)
    input: dict  # a wire node into the job's blob


@dataclass(frozen=True)
class JobSize:
    size: int  # the batch size of this input
    input: dict


@dataclass(frozen=True, kw_only=True)
class RunSpec:
    """What a run is, in the judge's words: the fields a ``Job`` frame and the judge's
    ``request.Request`` share, declared once. Each adds how it holds the cases."""
    source: str
    entry: str
    args: tuple[str, ...]
    time_seconds: float  # per case, and per every phase after loading
    load_seconds: float
    memory_mb: int
    watch: tuple[str, ...] = ()
    perturbed: tuple[str, ...] = ()  # the transform chain the dependence probe perturbs
    strict: bool = False  # stop before loading the submission unless every layer is active
    probe_ids: tuple[str, ...] = ()  # cases the dependence probe reruns (those that ran clean)
    # Each probe case reruns once per perturbation: (factor, shift, lane frequency, lane
    # phase, extra passes); see ``probe.PARAMS``.
    probe_perturbations: tuple[tuple[float, ...], ...] = ()
    # A bound on the whole run, on top of the per-phase limits (feedback's time budget):
    # the child is killed when it passes, and the run says so.
    wall_seconds: float | None = None


@dataclass(frozen=True, kw_only=True)
class Job(RunSpec):
    KIND: ClassVar[str] = "run"
    cases: tuple[JobCase, ...]
    cpu_seconds: int
    output_bytes: int
    size_inputs: tuple[JobSize, ...] = ()
    readable: tuple[str, ...] = ()  # what Landlock leaves readable
    xla_cache: str | None = None
    disabled_layers: tuple[str, ...] = ()

    def to_header(self) -> dict:
        header: dict[str, Any] = {"type": self.KIND}
        for f in fields(self):
            value = getattr(self, f.name)
            header[f.name] = [asdict(v) if f.name in ("cases", "size_inputs") else _list(v) for v in value] \
                if type(value) is tuple else value
        return header

    @classmethod
    def decode(cls, header: dict) -> "Job":
        """The judge's own frame, trusted, but read as strictly as the child's."""
        f = Fields.frame(header, cls.KIND)
        job = cls(
            source=f.text("source"), entry=f.text("entry"),
            args=texts(f.items("args", 64), "args", MAX_NAME),
            cases=tuple(_case(Fields(c, "case")) for c in f.items("cases", MAX_CASES)),
            time_seconds=f.number("time_seconds"), load_seconds=f.number("load_seconds"),
            cpu_seconds=f.whole("cpu_seconds", 1, INT32), memory_mb=f.whole("memory_mb", 1, INT32),
            output_bytes=f.whole("output_bytes", 0, INT32),
            watch=texts(f.items("watch", 1000), "watch", MAX_NAME),
            perturbed=texts(f.items("perturbed", 64), "perturbed", MAX_NAME),
            size_inputs=tuple(_size(Fields(s, "size input")) for s in f.items("size_inputs", 4)),
            strict=f.flag("strict"),
            probe_ids=texts(f.items("probe_ids", MAX_CASES), "probe_ids", MAX_ID),
            probe_perturbations=tuple(_perturbation(p) for p in f.items("probe_perturbations", MAX_PERTURBATIONS)),
            wall_seconds=f.number("wall_seconds") if f.present("wall_seconds") else None,
            readable=texts(f.items("readable", MAX_PATHS), "readable", 4096),
            xla_cache=f.text("xla_cache") if f.present("xla_cache") else None,
            disabled_layers=texts(f.items("disabled_layers", 64), "disabled_layers", MAX_NAME))
        f.end()
        return job


def _list(value: Any) -> Any:
    return list(value) if type(value) is tuple else value


def _case(f: Fields) -> JobCase:
    case = JobCase(f.text("id", MAX_ID), f.flag("hidden"), f.record("input").left)
    f.end()
    return case


def _size(f: Fields) -> JobSize:
    size = JobSize(f.whole("size", 0, INT32), f.record("input").left)
    f.end()
    return size


def perturbation(values: Any) -> tuple[float, ...]:
    """One perturbation with every parameter; one kept from an older table may lack the
    last ones, which are then neutral."""
    given = tuple(float(v) for v in values)[:len(NEUTRAL)]
    return given + NEUTRAL[len(given):]


def _perturbation(values: Any) -> tuple[float, ...]:
    if type(values) is not list or len(values) != len(NEUTRAL) or \
            not all(type(v) in (int, float) for v in values):
        raise WireError("a probe perturbation is not a list of its parameters")
    return tuple(float(v) for v in values)
