"""Stage 6: verdicts. A case's verdict comes from how its run ended and from
the first output check that failed; the submission's verdict is the first
failure in a fixed order: compile, static requirements, loading, runtime
requirements, then the cases (public first)."""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Verdict(str, Enum):
    AC = "AC"
    WA = "WA"
    RE = "RE"
    TLE = "TLE"
    MLE = "MLE"
    OLE = "OLE"
    CE = "CE"
    RJ = "RJ"
    IE = "IE"

    @property
    def title(self) -> str:
        return TITLES[self]

    @property
    def folder(self) -> str:
        return FOLDERS[self]


TITLES = {
    Verdict.AC: "Accepted", Verdict.WA: "Wrong Answer", Verdict.RE: "Runtime Error",
    Verdict.TLE: "Time Limit Exceeded", Verdict.MLE: "Memory Limit Exceeded",
    Verdict.OLE: "Output Limit Exceeded", Verdict.CE: "Compile Error",
    Verdict.RJ: "Rejected (requirements not met)", Verdict.IE: "Internal Error (the judge's fault)",
}
# Folder names under submissions/<problem>/ that name the expected verdict (Kattis style).
FOLDERS = {
    Verdict.AC: "accepted", Verdict.WA: "wrong_answer", Verdict.RE: "runtime_error",
    Verdict.TLE: "time_limit_exceeded", Verdict.MLE: "memory_limit_exceeded",
    Verdict.OLE: "output_limit_exceeded", Verdict.CE: "compile_error", Verdict.RJ: "rejected",
    Verdict.IE: "internal_error",
}
BY_FOLDER = {folder: v for v, folder in FOLDERS.items()}

# How a run ended -> (verdict, reason) before any output check.
RUN_STATUS = {
    "error": (Verdict.RE, "exception"),
    "crash": (Verdict.RE, "crash"),
    "mle": (Verdict.MLE, "memory"),
    "ole": (Verdict.OLE, "output_size"),
    "timeout": (Verdict.TLE, "time"),
    "bad_output": (Verdict.WA, "type"),
    "no_entry": (Verdict.CE, "no_entry"),
}


@dataclass(frozen=True)
class Outcome:
    verdict: Verdict
    reason: str = ""
    message: str = ""


def first_failure(outcomes: list[Outcome]) -> Outcome:
    for outcome in outcomes:
        if outcome.verdict is not Verdict.AC:
            return outcome
    return Outcome(Verdict.AC)
