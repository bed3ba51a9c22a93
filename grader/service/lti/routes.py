"""The tool's HTTP endpoints, as a router the service includes:

  GET|POST /lti/login      OIDC third-party initiated login: a 303 to the platform's authorization endpoint
  POST     /lti/launch     the id_token launch: checked, handed to the provisioner, a 303 to where it says
  GET      /lti/jwks       the tool's public keys (platforms verify the tool's JWTs with them)
  POST     /lti/deep-link  the picker's choice: the auto-posting LtiDeepLinkingResponse form

Each is a browser's navigation or form post (from the LMS, or the judge's picker), so a
refusal is an HTML page with a 4xx status (502 when the platform's key set cannot be
fetched): what went wrong, and what to tell the LMS's administrator. pylti1p3 and the
provisioner block (HTTP to the platform, the database), so they run in the thread pool,
never on the event loop."""
from __future__ import annotations

import html
import logging
from collections.abc import Callable
from datetime import datetime, timezone

from fastapi import APIRouter
from pylti1p3.exception import LtiException, OIDCException
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from .adapters import NO_STORE, LtiRequest
from .deep_linking import auto_post_form, response_jwt
from .errors import LtiRefusal
from .launch import JudgeMessageLaunch
from .login import JudgeOIDCLogin
from .tool import LtiTool

log = logging.getLogger("grader.service.lti")


# Nothing on the page acts (no form, no script, no link), so the LMS may show it in its frame.
REFUSAL_HEADERS = {**NO_STORE, "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
                   "base-uri 'none'; form-action 'none'", "X-Content-Type-Options": "nosniff",
                   "Referrer-Policy": "no-referrer"}


def refusal_page(e: LtiRefusal, what: str) -> HTMLResponse:
    """The page of a refused request: its reason (``#lti-refusal``), what to tell the LMS's
    administrator (``#lti-advice``) and the time, to find the refusal in the judge's log."""
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    page = ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>The judge could not open this link</title></head>"
            "<body style=\"font-family: sans-serif; max-width: 40em; margin: 2em auto; line-height: 1.4\">"
            f"<h1>The judge could not open this link</h1><p>The {html.escape(what)} was refused:</p>"
            f"<p id=\"lti-refusal\"><strong>{html.escape(e.message)}</strong></p>"
            f"<h2>What to do</h2><p id=\"lti-advice\">{html.escape(e.advice)}</p>"
            f"<p><small>HTTP {e.status} &middot; {when} &middot; JAX Judge (LTI 1.3)</small></p></body></html>")
    return HTMLResponse(page, status_code=e.status, headers=REFUSAL_HEADERS)


def _refusal(e: LtiRefusal, what: str) -> HTMLResponse:
    log.info("LTI %s refused (%d): %s", what, e.status, e.message)  # messages name claims, never tokens
    return refusal_page(e, what)


def _login(tool: LtiTool, request: LtiRequest) -> Response:
    return JudgeOIDCLogin(request, tool).redirect(tool.launch_url)


def _launch(tool: LtiTool, request: LtiRequest) -> Response:
    message = JudgeMessageLaunch(request, tool).validate()
    assert message.launch is not None
    path = tool.provisioner.on_launch(message.launch)
    # A path on this site only: the provisioner's answer must not make the tool an open redirect.
    if not path.startswith("/") or path.startswith("//") or "\\" in path:
        raise ValueError(f"Provisioner.on_launch must return a path on this site, not {path!r}")
    return message.cookies.apply(RedirectResponse(path, status_code=303, headers=NO_STORE))


def _deep_link(tool: LtiTool, request: LtiRequest) -> Response:
    launch_id = request.get_param("launch_id")
    if not launch_id:
        raise LtiRefusal(400, "the choice lacks launch_id (the deep-linking launch it answers)")
    return_url, token = response_jwt(tool, request, launch_id, request.get_param("item").split())
    page, headers = auto_post_form(return_url, token)
    return HTMLResponse(page, headers=headers)


def build_router(tool: LtiTool) -> APIRouter:
    router = APIRouter(tags=["lti"])

    async def run(what: str, request: Request, handler: Callable[[LtiTool, LtiRequest], Response]) -> Response:
        try:
            lti_request = await LtiRequest.read(request, tool.secure)
            return await run_in_threadpool(handler, tool, lti_request)
        except LtiRefusal as e:
            return _refusal(e, what)
        except (LtiException, OIDCException) as e:  # pylti1p3's own checks, those not already made stricter here
            return _refusal(LtiRefusal(400, f"the {what} is refused: {e}"), what)

    @router.api_route("/lti/login", methods=["GET", "POST"], include_in_schema=False)
    async def lti_login(request: Request) -> Response:
        return await run("login", request, _login)

    @router.post("/lti/launch", include_in_schema=False)
    async def lti_launch(request: Request) -> Response:
        return await run("launch", request, _launch)

    @router.post("/lti/deep-link", include_in_schema=False)
    async def lti_deep_link(request: Request) -> Response:
        return await run("deep-linking response", request, _deep_link)

    @router.get("/lti/jwks", include_in_schema=False)
    async def lti_jwks() -> Response:
        # Cached briefly by platforms: a rotated key is picked up within five minutes.
        return JSONResponse(tool.jwks(), headers={"Cache-Control": "public, max-age=300"})

    return router
