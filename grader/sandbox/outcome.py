"""How one load, case or probe rerun ended, as the child reports it: the part that
the ``load``, ``case`` and ``probe`` frames share (their headers hold its fields flat).

Shared by both sides of the trust boundary: the child's runner builds an
``ChildOutcome``; the judge reads one back with ``ChildOutcome.read``, cutting the text a
submission controls to its cap. No JAX here: the judge imports this.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal, get_args

from .fields import INT32, Fields

ChildStatus = Literal["ok", "error", "mle", "ole", "no_entry"]  # how the child says a load or a call ended
STATUSES: tuple[ChildStatus, ...] = get_args(ChildStatus)
# What an outcome holds on the judge's side: the child's word, or bad_output when the
# judge could not decode the output the child sent.
OutcomeStatus = Literal[ChildStatus, "bad_output"]
MAX_TEXT = 20_000  # printed text kept per load, case or probe (the child's sink keeps 8 KB, escaped)
MAX_MESSAGE = 2000  # an exception's message
MAX_TYPE = 100  # an exception's type name


@dataclass(frozen=True)
class ErrorInfo:
    type: str
    message: str
    line: int | None = None  # in the submission's file

    @classmethod
    def read(cls, f: Fields) -> "ErrorInfo":
        error = cls(f.text("type", MAX_TYPE), f.text("message", MAX_MESSAGE),
                    f.whole("line", -INT32, INT32) if f.present("line") else None)
        f.end()
        return error


@dataclass(frozen=True)
class ProgramOps:
    """The size of the program that computed a case's output. For hidden cases it
    decides a rule's pass or fail, and never appears in a report."""

    ops: int
    how: Literal["traced", "eager"]

    @classmethod
    def read(cls, f: Fields) -> "ProgramOps":
        program = cls(f.whole("ops"), f.choice("how", ("traced", "eager")))
        f.end()
        return program


@dataclass(frozen=True)
class Cost:
    """A case's time under jit, split: ``compile_ms`` traced, lowered and compiled the
    entry's program for this signature (0 when an earlier case's program served),
    ``run_ms`` ran it and waited for the outputs."""

    compile_ms: float
    run_ms: float

    @classmethod
    def read(cls, f: Fields) -> "Cost":
        cost = cls(f.number("compile_ms"), f.number("run_ms"))
        f.end()
        return cost


@dataclass(frozen=True)
class ChildOutcome:
    status: OutcomeStatus
    time_ms: float | None = None
    stdout: str = ""
    error: ErrorInfo | None = None
    program: ProgramOps | None = None
    cost: Cost | None = None

    def fields(self) -> dict[str, Any]:
        """The header fields of this outcome; a part that is None is left out."""
        out: dict[str, Any] = {"status": self.status, "stdout": self.stdout}
        if self.time_ms is not None:
            out["time_ms"] = self.time_ms
        for key, part in (("error", self.error), ("program", self.program), ("cost", self.cost)):
            if part is not None:
                out[key] = asdict(part)
        return out

    @classmethod
    def read(cls, f: Fields) -> "ChildOutcome":
        """Take an outcome's fields from a frame's header (whose reader the frame ends)."""
        return cls(f.choice("status", STATUSES),
                   f.number("time_ms") if f.present("time_ms") else None,
                   f.text("stdout", MAX_TEXT) if f.present("stdout") else "",
                   ErrorInfo.read(f.record("error")) if f.present("error") else None,
                   ProgramOps.read(f.record("program")) if f.present("program") else None,
                   Cost.read(f.record("cost")) if f.present("cost") else None)
