"""The OIDC third-party initiated login (IMS Security Framework 1.0 §5.1.1), as pylti1p3's
``OIDCLogin``: the initiation is checked here (pylti1p3 checks only iss and login_hint), and
the nonce is recorded with the state so that the launch can tell it was issued for this login."""
from __future__ import annotations

import secrets
from typing import cast

from pylti1p3.oidc_login import OIDCLogin
from pylti1p3.registration import Registration
from pylti1p3.session import SessionService
from pylti1p3.tool_config import ToolConfJsonFile
from starlette.responses import HTMLResponse, Response

from .adapters import LtiCookieService, LtiRedirect, LtiRequest
from .errors import CONFIGURATION, LtiRefusal
from .tool import LtiTool


class JudgeOIDCLogin(OIDCLogin[LtiRequest, ToolConfJsonFile, SessionService, LtiCookieService, Response]):
    """Third-party initiated login (§5.1.1): checks the initiation, then redirects the browser to
    the platform's authorization endpoint with a fresh state (also set as a cookie) and nonce."""

    def __init__(self, request: LtiRequest, tool: LtiTool) -> None:
        super().__init__(request, tool.config.pylti, SessionService(request),
                         LtiCookieService(request, tool.cookie_path), tool.storage)
        self._tool = tool
        self.set_launch_data_storage(tool.storage)
        self.set_launch_data_lifetime(tool.login_ttl)

    def get_redirect(self, url: str) -> LtiRedirect:
        return LtiRedirect(url, self._cookie_service)

    def get_response(self, html: str) -> Response:
        return HTMLResponse(html)

    def validate_oidc_login(self) -> Registration:
        iss, hint = self._get_request_param("iss"), self._get_request_param("login_hint")
        target = self._get_request_param("target_link_uri")
        for name, value in (("iss", iss), ("login_hint", hint), ("target_link_uri", target)):
            if not value:
                raise LtiRefusal(400, f"the login initiation lacks the required parameter {name}")
        reg = self._tool.registration(iss, self._get_request_param("client_id") or None)
        # Canvas sends deployment_id, the specification lti_deployment_id; both optional.
        deployment = self._get_request_param("lti_deployment_id") or self._get_request_param("deployment_id")
        if deployment and deployment not in reg.deployment_ids:
            raise LtiRefusal(403, f"deployment_id {deployment!r} is not registered for issuer {iss!r}",
                              CONFIGURATION)
        if not self._tool.is_own_url(target):  # else a login could be made to send users anywhere
            raise LtiRefusal(400, "target_link_uri is not a URL of this tool")
        # Kept server-side under the state, consumed by the launch.
        self._state_params = {"iss": reg.issuer, "client_id": reg.client_id, "target_link_uri": target}
        return cast(Registration, self._tool.config.pylti.find_registration_by_params(reg.issuer, reg.client_id))

    def _generate_nonce(self) -> str:
        # pylti1p3 calls this after validate_oidc_login and before saving the state's parameters:
        # recording the nonce there binds it to this state (and so to this browser's cookie).
        nonce = secrets.token_urlsafe(32)
        self._state_params = {**self._state_params, "nonce": nonce}
        return nonce
