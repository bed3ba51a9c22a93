"""The verdict vocabulary shared by the judge, its reports and the problem corpus."""
from __future__ import annotations

from enum import Enum
from typing import Literal

# Who sees a case: a public case in full, a hidden one only as id, verdict and reason.
Visibility = Literal["public", "hidden"]


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

    # Shadows str.title() on purpose: a verdict's title is its name, never a re-cased code.
    @property
    def title(self) -> str:  # type: ignore[override]
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
