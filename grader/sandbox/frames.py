"""The decode table: every frame kind the judge accepts, the frozen dataclass it
decodes into and the most bytes (header and blob) a frame of that kind may take;
and the zygote's own two messages, ``ready`` and ``exit``.

Used on both sides of the trust boundary: the judge (``host``) reads every frame
with ``read_message``, which refuses a kind the table lacks, and a frame over its
kind's cap before its blob is read; the zygote relays only the kinds a child may
send (``CHILD_KINDS``), so no child can forge the zygote's ``exit``. No JAX here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any, Callable, ClassVar

from . import wire
from .fields import INT32, Fields, no_blob
from .messages import PHASES, Begin, CaseDone, Done, Hello, Load, ProbeDone, RuntimeRecord, Sizes

HEADROOM = 1 << 20  # frame headers and captured prints, on top of the output cap
KILLS = ("timeout", "budget", "ole", "protocol")  # why the zygote killed a child
SMALL_CAP = 4 << 10  # nothing in it but a case id and a few numbers
HELLO_CAP = 64 << 10  # a few layer names, and why some were unavailable
SIZES_CAP = 64 << 10  # a few measurements
RUNTIME_CAP = 1 << 20  # MAX_NESTS nestings of MAX_NEST_DEPTH names, MAX_CALLS callables of MAX_CALL_LINES lines


def output_cap(output_bytes: int) -> int:
    """What a frame carrying a run's output (and its prints) may take: past it, the
    zygote kills the child (OLE); the judge holds ``load``, ``case`` and ``probe`` to it."""
    return output_bytes + HEADROOM


@dataclass(frozen=True)
class Ready:
    """The zygote imported everything and waits for jobs."""

    KIND: ClassVar[str] = "ready"
    pid: int

    def to_header(self) -> dict:
        return {"type": self.KIND, "pid": self.pid}

    @classmethod
    def decode(cls, header: dict, blob: bytes = b"") -> "Ready":
        f = Fields.frame(header, cls.KIND)
        ready = cls(f.whole("pid", 1, INT32))
        f.end()
        no_blob(blob, cls.KIND)
        return ready


@dataclass(frozen=True)
class Exit:
    """How the zygote saw its child end."""

    KIND: ClassVar[str] = "exit"
    killed: str | None  # one of KILLS, or None when the child ended by itself
    phase: str  # the phase that was running, or "done"
    code: int | None
    signal: int | None
    maxrss_kb: int | None = None  # with cpu_s; absent when the child is reaped later
    cpu_s: float | None = None
    wall_s: float = 0.0

    def to_header(self) -> dict:
        """Also the record the judge keeps (``RunResult.exit``): a verdict quotes it in
        the message of a crashed case, so it keeps the zygote's keys in their order."""
        head: dict[str, Any] = {"type": self.KIND, "killed": self.killed, "phase": self.phase, "code": self.code,
                                "signal": self.signal}
        if self.maxrss_kb is not None:
            head["maxrss_kb"], head["cpu_s"] = self.maxrss_kb, self.cpu_s
        return {**head, "wall_s": self.wall_s}

    @classmethod
    def decode(cls, header: dict, blob: bytes = b"") -> "Exit":
        f = Fields.frame(header, cls.KIND)
        killed = f.choice("killed", KILLS) if f.present("killed") else None
        phase = f.choice("phase", (*PHASES, "done"))
        code = f.whole("code", -INT32, INT32) if f.present("code") else None
        signal = f.whole("signal", 0, 256) if f.present("signal") else None
        rss = f.whole("maxrss_kb") if f.present("maxrss_kb") else None
        cpu = f.number("cpu_s") if rss is not None else None
        exit_ = cls(killed, phase, code, signal, rss, cpu, f.number("wall_s"))
        f.end()
        no_blob(blob, cls.KIND)
        return exit_


@dataclass(frozen=True)
class Kind:
    decode: Callable[[dict, bytes], object]  # the message class's
    cap: int | None  # bytes of header and blob; None: the run's ``output_cap``


STARTUP: dict[str, Kind] = {"ready": Kind(Ready.decode, SMALL_CAP)}
RUN: dict[str, Kind] = {
    "hello": Kind(Hello.decode, HELLO_CAP),
    "begin": Kind(Begin.decode, SMALL_CAP),
    "load": Kind(Load.decode, None),
    "sizes": Kind(Sizes.decode, SIZES_CAP),
    "case": Kind(CaseDone.decode, None),
    "runtime": Kind(RuntimeRecord.decode, RUNTIME_CAP),
    "probe": Kind(ProbeDone.decode, None),
    "done": Kind(Done.decode, SMALL_CAP),
    "exit": Kind(Exit.decode, SMALL_CAP),  # the zygote's, after the child's last frame
}
CHILD_KINDS = frozenset(RUN) - {"exit"}


class UnknownKind(wire.WireError):
    """A frame of a kind the table does not hold."""


def kind_of(header: dict, table: dict[str, Kind]) -> Kind:
    kind = header.get("type")
    if type(kind) is not str or kind not in table:
        raise UnknownKind("a frame of a kind the protocol does not define here")
    return table[kind]


def read_message(stream: IO[bytes], table: dict[str, Kind], output_bytes: int = 0) -> object:
    """The next frame as its message, or WireError (EOFError at a clean end)."""
    def cap(kind: Kind) -> int:
        return output_cap(output_bytes) if kind.cap is None else kind.cap

    header, blob = wire.read_frame(stream, max(map(cap, table.values())), lambda h: cap(kind_of(h, table)))
    return kind_of(header, table).decode(header, blob)
