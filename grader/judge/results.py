"""The outcome of one static or runtime requirement check, as the judge keeps it."""
from __future__ import annotations

from dataclasses import dataclass

from ..report.model import CheckLine


@dataclass(frozen=True)
class CheckResult:
    name: str
    passed: bool
    message: str = ""
    verdict: str = "RJ"  # what a failure of this check means
    reason: str = ""  # the reason code of that verdict, when it is not the default one


def lines(checks: list[CheckResult]) -> list[CheckLine]:
    """The checks as the report shows them."""
    return [CheckLine(c.name, c.passed, c.message) for c in checks]
