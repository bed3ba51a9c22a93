"""The tool's HTTP endpoints, as a router the service includes:

  GET|POST /lti/login      OIDC third-party initiated login: a 303 to the platform's authorization endpoint
  POST     /lti/launch     the id_token launch: checked, handed to the provisioner, a 303 to where it says
  GET      /lti/jwks       the tool's public keys (platforms verify the tool's JWTs with them)
  POST     /lti/deep-link  the picker's choice: the auto-posting LtiDeepLinkingResponse form

A refusal is ``{"detail": "..."}`` with a 4xx status (502 when the platform's key set cannot
be fetched). pylti1p3 and the provisioner block (HTTP to the platform, the database), so
they run in the thread pool, never on the event loop."""
from __future__ import annotations

import logging
from collections.abc import Callable

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


def _refusal(e: LtiRefusal, what: str) -> JSONResponse:
    log.info("LTI %s refused (%d): %s", what, e.status, e.message)  # messages name claims, never tokens
    return JSONResponse({"detail": e.message}, status_code=e.status, headers=NO_STORE)


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
