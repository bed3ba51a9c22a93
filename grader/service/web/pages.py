"""What every page shares: the template environment (autoescaping everything), who is
looking (the session cookie, as the API reads it), the page's CSRF token, answers with
the security headers, and the error pages."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated
from urllib.parse import quote

from fastapi import Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from ... import __version__
from ...common.verdicts import TITLES, Verdict
from ...report.text import visible
from ..domain.accounts import Principal, csrf_matches, principal_from_cookie

TEMPLATES = Path(__file__).resolve().parent / "templates"

# No inline script may run: a string a submission controls that slipped past escaping
# still could not execute. CodeMirror and htmx set style attributes, hence the styles.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin",
           "X-Frame-Options": "DENY", "Cache-Control": "no-store"}

VERDICT_TITLES = {v.value: t for v, t in TITLES.items()}


@dataclass(frozen=True)
class WebConfig:
    api: str  # the API's prefix, which the pages' script writes to
    session_cookie: str
    csrf_cookie: str


@dataclass(frozen=True)
class Viewer:
    who: Principal
    csrf: str  # the session's CSRF token (from its cookie, checked against the session), for the forms

    @property
    def instructor(self) -> bool:
        return self.who.instructor


class PageError(Exception):
    def __init__(self, status: int, message: str, headers: dict | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers or {}


def verdict_title(code: str | None) -> str:
    return VERDICT_TITLES.get(code or "", "")


def verdict_class(code: str | None) -> str:
    return f"v-{code}" if code in VERDICT_TITLES else "v-none"


def when(t: datetime | None) -> Markup:
    """Every time a page shows, in one format: ``2026-12-10 23:59 UTC`` inside a
    ``<time>`` that app.js rewrites into the viewer's own zone in the same layout, the
    zone named (``2026-12-10 18:59 EST``); UTC stays where scripts do not run. Its title
    holds the exact second, in UTC."""
    if t is None:
        return Markup("")
    utc = t.astimezone(timezone.utc) if t.tzinfo else t.replace(tzinfo=timezone.utc)
    return Markup('<time class="local" datetime="{}" title="{}">{}</time>').format(
        utc.isoformat(timespec="seconds"), f"{utc:%Y-%m-%d %H:%M:%S} UTC", f"{utc:%Y-%m-%d %H:%M} UTC")


ENV = Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=True, trim_blocks=True, lstrip_blocks=True,
                  undefined=StrictUndefined)
# Every string a submission controls is shown with its control and bidi characters as
# escapes (as in every report format), then HTML-escaped by autoescaping.
ENV.filters["v"] = visible
ENV.filters["vtitle"] = verdict_title
ENV.filters["vclass"] = verdict_class
ENV.filters["when"] = when
ENV.filters["kind_name"] = lambda kind: {"run": "Run", "submit": "Submit", "custom": "Custom run"}.get(kind, kind)
ENV.globals.update(version=__version__, verdicts=[v.value for v in Verdict])


def ctx(request: Request):
    return request.app.state.ctx


def web(request: Request) -> WebConfig:
    return request.app.state.web


def login_url(request: Request) -> str:
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return "/login?next=" + quote(target, safe="")


def current_viewer(request: Request) -> Viewer | None:
    w = web(request)
    cookie = request.cookies.get(w.session_cookie)
    if not cookie:
        return None
    found = principal_from_cookie(ctx(request).db, cookie)
    if found is None:
        return None
    who, csrf_hash = found
    token = request.cookies.get(w.csrf_cookie, "")
    return Viewer(who, token if csrf_matches(csrf_hash, token) else "")


def viewer(request: Request) -> Viewer:
    """The logged-in viewer, else off to the login page (a fragment loaded by htmx
    gets 401 and tells htmx to go there)."""
    v = current_viewer(request)
    if v is not None:
        return v
    if request.headers.get("HX-Request"):
        raise PageError(401, "log in again", {"HX-Redirect": login_url(request)})
    raise PageError(303, "log in", {"Location": login_url(request)})


def instructor(request: Request) -> Viewer:
    v = viewer(request)
    if not v.instructor:
        raise PageError(403, "This page is for instructors.")
    return v


def render(request: Request, template: str, http_status: int = 200, **values) -> HTMLResponse:
    values.setdefault("viewer", None)
    html = ENV.get_template(template).render(api=web(request).api, path=request.url.path, **values)
    return HTMLResponse(html, status_code=http_status, headers=HEADERS)


def redirect(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303, headers=HEADERS)


async def error_page(request: Request, exc: PageError):
    if exc.status in (301, 302, 303, 307):
        return RedirectResponse(exc.headers["Location"], status_code=exc.status, headers=HEADERS)
    from fastapi.concurrency import run_in_threadpool

    v = await run_in_threadpool(current_viewer, request) if exc.status != 401 else None
    if request.headers.get("HX-Request"):
        return HTMLResponse(f'<p class="error">{_escape(exc.message)}</p>', status_code=exc.status,
                            headers={**HEADERS, **exc.headers})
    response = render(request, "error.html", exc.status, viewer=v, status=exc.status, message=exc.message)
    response.headers.update(exc.headers)
    return response


def _escape(text: str) -> str:
    from markupsafe import escape

    return str(escape(text))


# The dependencies pages declare: ``v: ViewerDep`` (logged in, else the login page),
# ``v: InstructorViewer`` (403 for a learner).
ViewerDep = Annotated[Viewer, Depends(viewer)]
InstructorViewer = Annotated[Viewer, Depends(instructor)]
