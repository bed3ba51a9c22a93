"""The one exception the LTI code raises for a request it refuses. The router answers it
with an HTML page (the request is a browser's navigation or form post, from the LMS or the
picker) that says what went wrong and what to tell the LMS's administrator, with its 4xx
status, so that no refusal becomes a 500 or a bare JSON body in the learner's window."""
from __future__ import annotations

# What to tell whoever can fix it, when a refusal says nothing more specific.
ADVICE = ("If launching again does not help, tell your LMS administrator what this page says, the time it "
          "shows and which link you followed: the LMS's registration of the tool (JAX Judge, LTI 1.3) or the "
          "link's settings differ from what the judge expects.")
CONFIGURATION = ("Tell your LMS administrator: the LMS's registration of the tool and the judge's LTI "
                 "configuration do not match; the judge's administrator enters the issuer, client ID and "
                 "deployment ID the LMS shows for this tool into the judge's LTI configuration file.")


class LtiRefusal(Exception):
    """A refused LTI request. ``message`` is shown to the caller: it names the problem, never a token;
    ``advice`` says what to tell the LMS administrator (``ADVICE`` when None)."""

    def __init__(self, status: int, message: str, advice: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.advice = advice or ADVICE
