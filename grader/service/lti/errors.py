"""The one exception the LTI code raises for a request it refuses: the router turns it into
``{"detail": message}`` with its 4xx status, so that no refusal becomes a 500."""
from __future__ import annotations


class LtiRefusal(Exception):
    """A refused LTI request. ``message`` is shown to the caller: it names the problem, never a token."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
