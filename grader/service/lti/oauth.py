"""Access tokens for the platform's services: OAuth2 client credentials with a JWT client
assertion signed by the tool's key (RFC 7523, IMS Security Framework 1.0 §4.1), each kept
until shortly before it expires. pylti1p3's ServiceConnector keeps them forever."""
from __future__ import annotations

import secrets
import threading
import time

import httpx
import jwt

from .config import PlatformRegistration, ToolConfig


class ServiceFailure(Exception):
    """A service call that did not work: ``status`` is the platform's HTTP status, if any."""

    def __init__(self, status: int | None, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def said(response: httpx.Response) -> str:
    """The platform's answer for a message: its status and the start of its body."""
    text = " ".join(response.text.split())[:200]
    return f"HTTP {response.status_code}" + (f": {text}" if text else "")


class TokenCache:
    def __init__(self, config: ToolConfig, http: httpx.Client) -> None:
        self._config, self._http = config, http
        self._tokens: dict[tuple[str, str, tuple[str, ...]], tuple[str, float]] = {}
        self._lock = threading.Lock()

    def drop(self, reg: PlatformRegistration, scopes: tuple[str, ...]) -> None:
        with self._lock:
            self._tokens.pop((reg.auth_token_url, reg.client_id, scopes), None)

    def get(self, reg: PlatformRegistration, scopes: tuple[str, ...]) -> str:
        key = (reg.auth_token_url, reg.client_id, scopes)
        with self._lock:
            cached = self._tokens.get(key)
            if cached and cached[1] > time.monotonic():
                return cached[0]
        pylti = self._config.pylti.find_registration_by_params(reg.issuer, reg.client_id)
        now = int(time.time())
        claims = {"iss": reg.client_id, "sub": reg.client_id, "aud": reg.auth_audience or reg.auth_token_url,
                  "iat": now, "exp": now + 300, "jti": secrets.token_urlsafe(24)}
        kid = pylti.get_kid()
        assertion = jwt.encode(claims, pylti.get_tool_private_key(), algorithm="RS256",
                               headers={"kid": kid} if kid else None)
        form = {"grant_type": "client_credentials",
                "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                "client_assertion": assertion, "scope": " ".join(scopes)}
        response = self._http.post(reg.auth_token_url, data=form, headers={"Accept": "application/json"})
        if response.status_code != 200:
            raise ServiceFailure(response.status_code, f"the platform refused an access token: {said(response)}")
        try:
            answer = response.json()
            token, kind = answer["access_token"], str(answer.get("token_type", "Bearer"))
            lifetime = float(answer.get("expires_in", 3600))
        except (ValueError, KeyError, TypeError):
            raise ServiceFailure(200, "the platform's token endpoint answered without an access_token") from None
        if not isinstance(token, str) or not token or kind.lower() != "bearer":
            raise ServiceFailure(200, "the platform's token endpoint answered without a bearer access_token")
        with self._lock:
            # Renewed a little early (a tenth of its life, at most a minute) so no request carries a dying token.
            self._tokens[key] = (token, time.monotonic() + lifetime - min(60.0, lifetime / 10))
        return token
