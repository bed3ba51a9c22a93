"""What the child tells the judge: one frozen dataclass per frame kind it sends, in
the order it sends them (``hello``, ``begin``, ``load``, ``sizes``, ``case``,
``runtime``, ``probe``, ``done``).

Shared by both sides of the trust boundary. The child builds these and sends
``to_header()`` (``child/main.py``); the judge turns every frame it reads into one
of them with ``decode``, through the table of ``frames``, or refuses it: each shape
is checked once, here, and the judge's stages trust what they get. No JAX here: the
judge imports this.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar, Literal, Mapping, Protocol

from . import wire
from .fields import INT32, Fields, no_blob, texts
from .outcome import MAX_TYPE, ErrorInfo, ChildOutcome

PHASES = ("load", "sizes", "case", "runtime", "probe")  # in the order the child runs them
MAX_ID = 1000  # a case id (a file name)
MAX_NAME = 200  # a layer's name, a watched callable's dotted name
MAX_LAYERS = 20
MAX_SIZES = 4  # size measurements (the judge asks for two)
MAX_CALLS = 256  # watched callables in the record
MAX_CALL_LINES = 20  # lines kept per watched callable
MAX_NESTS = 256  # distinct nestings kept
MAX_NEST_DEPTH = 16  # transforms kept per nesting
MAX_PERTURBATIONS = 64  # probe perturbations per job


def _plain(record: Any) -> dict:
    """A record as a header holds it: a field that is None is left out."""
    return {k: v for k, v in asdict(record).items() if v is not None}


class Message(Protocol):
    KIND: ClassVar[str]

    def to_header(self) -> dict: ...


class _Plain:
    """A message whose header is its fields."""

    KIND: ClassVar[str]

    def to_header(self) -> dict:
        return {"type": self.KIND, **_plain(self)}


@dataclass(frozen=True)
class Hello:
    """The child's lockdown is done: from here on submission code may run."""

    KIND: ClassVar[str] = "hello"
    layers: tuple[str, ...]
    unavailable: Mapping[str, str]  # layer -> why it could not be applied

    @classmethod
    def decode(cls, header: dict, blob: bytes = b"") -> "Hello":
        f = Fields.frame(header, cls.KIND)
        layers = texts(f.items("layers", MAX_LAYERS), "hello.layers", MAX_NAME)
        why = f.mapping("unavailable", MAX_LAYERS, MAX_NAME)
        if not all(type(v) is str for v in why.values()):
            raise wire.WireError("hello.unavailable holds something other than text")
        f.end()
        no_blob(blob, cls.KIND)
        return cls(layers, {k: v[:300] for k, v in why.items()})

    def to_header(self) -> dict:
        return {"type": self.KIND, "layers": list(self.layers), "unavailable": dict(self.unavailable)}


@dataclass(frozen=True)
class Load:
    KIND: ClassVar[str] = "load"
    outcome: ChildOutcome  # no_entry: the module defines no callable entry

    def to_header(self) -> dict:
        return {"type": self.KIND, **self.outcome.fields()}

    @classmethod
    def decode(cls, header: dict, blob: bytes = b"") -> "Load":
        f = Fields.frame(header, cls.KIND)
        load = cls(ChildOutcome.read(f))
        f.end()
        no_blob(blob, cls.KIND)
        return load


@dataclass(frozen=True)
class Begin(_Plain):
    """A phase starts: a kill or a crash from here on is charged to it."""

    KIND: ClassVar[str] = "begin"
    phase: str  # one of PHASES
    case: str | None = None  # the case a "case" or "probe" phase runs

    @classmethod
    def decode(cls, header: dict, blob: bytes = b"") -> "Begin":
        f = Fields.frame(header, cls.KIND)
        phase = f.choice("phase", PHASES)
        case = f.text("case", MAX_ID) if phase == "case" or f.present("case") else None
        f.end()
        no_blob(blob, cls.KIND)
        return cls(phase, case)


@dataclass(frozen=True)
class CaseDone:
    """One case's outcome. ``output`` and ``args`` (the arguments after the call) are the
    submission's objects in the child and their decoded trees in the judge, and travel
    only when the call ended ``ok``."""

    KIND: ClassVar[str] = "case"
    case: str
    outcome: ChildOutcome
    output: Any = None
    args: Any = None

    def to_header(self) -> dict:
        return {"type": self.KIND, "case": self.case, **self.outcome.fields()}

    def trees(self) -> dict[str, Any] | None:
        return {"output": self.output, "args": self.args} if self.outcome.status == "ok" else None

    def failed(self, outcome: ChildOutcome) -> "CaseDone":
        """The same case, ended otherwise (say, an output too large to send)."""
        return replace(self, outcome=outcome, output=None, args=None)

    @classmethod
    def decode(cls, header: dict, blob: bytes = b"") -> "CaseDone":
        f = Fields.frame(header, cls.KIND)
        case, outcome = f.text("case", MAX_ID), ChildOutcome.read(f)
        output, args, outcome = _trees(f, blob, outcome, ("output", "args"))
        f.end()
        return cls(case, outcome, output, args)


def _trees(f: Fields, blob: bytes, outcome: ChildOutcome, keys: tuple[str, ...]) -> tuple[Any, ...]:
    """The trees a frame carries (only when the call ended ok), and the outcome: a tree
    the judge cannot decode is the case's own bad output, as it always was."""
    if outcome.status != "ok":
        no_blob(blob, f.what)
        return (*(None for _ in keys), outcome)
    try:
        nodes = [f.record(key).left for key in keys]  # objects; the tree decoder checks the rest
        return (*(wire.decode_tree(node, blob) for node in nodes), outcome)
    except (wire.WireError, ValueError, TypeError) as exc:
        for key in keys:
            f.left.pop(key, None)
        error = ErrorInfo("WireError", str(exc)[:500], None)
        return (*(None for _ in keys), replace(outcome, status="bad_output", error=error))


@dataclass(frozen=True)
class ProbeDone:
    """One rerun under a perturbation of the dependence probe (``perturbation``: which of the
    job's perturbations); ``output`` as in ``CaseDone``."""

    KIND: ClassVar[str] = "probe"
    case: str
    perturbation: int
    outcome: ChildOutcome
    output: Any = None

    def to_header(self) -> dict:
        return {"type": self.KIND, "case": self.case, "perturbation": self.perturbation, **self.outcome.fields()}

    def trees(self) -> dict[str, Any] | None:
        return {"output": self.output} if self.outcome.status == "ok" else None

    def failed(self, outcome: ChildOutcome) -> "ProbeDone":
        return replace(self, outcome=outcome, output=None)

    @classmethod
    def decode(cls, header: dict, blob: bytes = b"") -> "ProbeDone":
        f = Fields.frame(header, cls.KIND)
        case, perturbation = f.text("case", MAX_ID), f.whole("perturbation", 0, MAX_PERTURBATIONS)
        output, outcome = _trees(f, blob, ChildOutcome.read(f), ("output",))
        f.end()
        return cls(case, perturbation, outcome, output)


@dataclass(frozen=True)
class ProgramSize:
    """The program's size at one batch size (``ops`` None: it could not be measured)."""

    size: int
    ops: int | None  # operations in the program (see child.sizes)
    how: Literal["traced", "eager"]
    error: str | None = None  # the type of what measuring it raised

    @classmethod
    def read(cls, f: Fields) -> "ProgramSize":
        size = f.whole("size")
        ops = f.whole("ops") if f.present("ops") else None
        how: Literal["traced", "eager"] = f.choice("how", ("traced", "eager"))
        error = (f.text("error", MAX_TYPE) or None) if f.present("error") else None
        f.end()
        return cls(size, ops, how, error)


@dataclass(frozen=True)
class Sizes:
    KIND: ClassVar[str] = "sizes"
    sizes: tuple[ProgramSize, ...]

    def to_header(self) -> dict:
        return {"type": self.KIND, "sizes": [_plain(s) for s in self.sizes]}

    @classmethod
    def decode(cls, header: dict, blob: bytes = b"") -> "Sizes":
        f = Fields.frame(header, cls.KIND)
        sizes = tuple(ProgramSize.read(Fields(s, "sizes entry")) for s in f.items("sizes", MAX_SIZES))
        f.end()
        no_blob(blob, cls.KIND)
        return cls(sizes)


@dataclass(frozen=True)
class JitReport:
    mode: str  # jit | eager: how the entry ran in the end
    broke: str | None = None  # why it left jit, when a public case made it


@dataclass(frozen=True)
class RuntimeRecord:
    """Which watched callables ran (with the lines they were called from, public phases
    only) and how the traced functions nested (``child/instrument.py`` records it)."""

    KIND: ClassVar[str] = "runtime"
    calls: Mapping[str, tuple[int, ...]]
    nests: tuple[tuple[str, ...], ...]
    overflow: bool  # more nestings than the record keeps
    jit: JitReport

    def to_header(self) -> dict:
        return {"type": self.KIND, "calls": {k: list(v) for k, v in self.calls.items()},
                "nests": [list(n) for n in self.nests], "overflow": self.overflow, "jit": _plain(self.jit)}

    @classmethod
    def decode(cls, header: dict, blob: bytes = b"") -> "RuntimeRecord":
        f = Fields.frame(header, cls.KIND)
        calls = {name: _lines(lines) for name, lines in f.mapping("calls", MAX_CALLS, MAX_NAME).items()}
        nests = tuple(_nest(n) for n in f.items("nests", MAX_NESTS))
        overflow, j = f.flag("overflow"), f.record("jit")
        mode = j.choice("mode", ("jit", "eager"))
        jit = JitReport(mode, (j.text("broke", 500) or None) if j.present("broke") else None)
        j.end()
        f.end()
        no_blob(blob, cls.KIND)
        return cls(calls, nests, overflow, jit)


def _lines(lines: Any) -> tuple[int, ...]:
    if type(lines) is not list or len(lines) > MAX_CALL_LINES or \
            not all(type(n) is int and 0 <= n < INT32 for n in lines):
        raise wire.WireError("runtime.calls holds something other than line numbers")
    return tuple(lines)


def _nest(names: Any) -> tuple[str, ...]:
    if type(names) is not list or len(names) > MAX_NEST_DEPTH:
        raise wire.WireError(f"runtime.nests holds something other than lists of at most {MAX_NEST_DEPTH} names")
    return texts(names, "runtime.nests", MAX_NAME)


@dataclass(frozen=True)
class Done(_Plain):
    """Every phase the job asked for finished."""

    KIND: ClassVar[str] = "done"

    @classmethod
    def decode(cls, header: dict, blob: bytes = b"") -> "Done":
        Fields.frame(header, cls.KIND).end()
        no_blob(blob, cls.KIND)
        return cls()
