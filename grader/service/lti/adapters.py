"""pylti1p3 for Starlette/FastAPI: the library ships Django and Flask adapters only.

``LtiRequest`` is read once, with bounded sizes, from a Starlette request; ``LtiCookieService``
collects the cookies pylti1p3 sets and writes them onto the response; ``LtiRedirect`` is the
redirect pylti1p3 returns from the OIDC login. The launch-data storage (pylti1p3's session,
without Flask's) is ``storage.MemoryLaunchDataStorage``."""
from __future__ import annotations

import json
from collections.abc import Mapping
from urllib.parse import parse_qsl

from pylti1p3.cookie import CookieService
from pylti1p3.redirect import Redirect
from pylti1p3.request import Request as PyltiRequest
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from .errors import LtiRefusal

MAX_BODY = 96 * 1024       # a launch form is an id_token and a state; Canvas's tokens are a few KiB
MAX_ID_TOKEN = 64 * 1024
MAX_FIELD = 8 * 1024       # lti_message_hint is itself a JWT on some platforms
MAX_FIELDS = 32
NO_STORE = {"Cache-Control": "no-store"}


class LtiRequest(PyltiRequest):
    """The parameters (query for GET, form for POST) and cookies of one request."""

    def __init__(self, params: Mapping[str, str], cookies: Mapping[str, str], secure: bool) -> None:
        super().__init__()
        self._params = dict(params)
        self._cookies = dict(cookies)
        self._secure = secure

    @classmethod
    async def read(cls, request: Request, secure: bool) -> LtiRequest:
        """Parse ``request`` within the size limits; :class:`LtiRefusal` (413, 415, 400) otherwise."""
        if request.method == "GET":
            raw = request.url.query.encode("latin-1", "replace")
        else:
            ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if ctype != "application/x-www-form-urlencoded":
                raise LtiRefusal(415, "expected a form post (application/x-www-form-urlencoded)")
            raw = await _read_body(request)
        if len(raw) > MAX_BODY:
            raise LtiRefusal(413, f"the request's parameters exceed {MAX_BODY // 1024} KiB")
        try:
            pairs = parse_qsl(raw.decode("utf-8"), keep_blank_values=True, max_num_fields=MAX_FIELDS)
        except UnicodeDecodeError:
            raise LtiRefusal(400, "the request's parameters are not UTF-8") from None
        except ValueError:
            raise LtiRefusal(413, f"the request has more than {MAX_FIELDS} parameters") from None
        params: dict[str, str] = {}
        for key, value in pairs:
            if key in params:  # two values for one name: no honest platform sends that
                raise LtiRefusal(400, f"parameter {key!r} is given twice")
            limit = MAX_ID_TOKEN if key in ("id_token", "JWT") else MAX_FIELD
            if len(value) > limit:
                raise LtiRefusal(413, f"parameter {key!r} is larger than {limit // 1024} KiB")
            params[key] = value
        return cls(params, request.cookies, secure)

    @property
    def params(self) -> Mapping[str, str]:
        return self._params

    @property
    def cookies(self) -> Mapping[str, str]:
        return self._cookies

    def get_param(self, key: str) -> str:
        # pylti1p3 tests parameters for truth: "" is its "absent".
        return self._params.get(key, "")

    def get_cookie(self, key: str) -> str | None:
        return self._cookies.get(key)

    def is_secure(self) -> bool:
        return self._secure


async def _read_body(request: Request) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise LtiRefusal(413, f"the request body exceeds {MAX_BODY // 1024} KiB")
    chunks, size = [], 0
    async for chunk in request.stream():  # stop reading at the limit, whatever the header said
        size += len(chunk)
        if size > MAX_BODY:
            raise LtiRefusal(413, f"the request body exceeds {MAX_BODY // 1024} KiB")
        chunks.append(chunk)
    return b"".join(chunks)


class LtiCookieService(CookieService):
    """The cookies pylti1p3 reads and sets (the OIDC state), applied to the response by ``apply``.

    Over HTTPS they are ``SameSite=None; Secure``: the launch is a cross-site form post from the
    platform, and a Lax cookie would not come with it."""

    def __init__(self, request: LtiRequest, path: str = "/") -> None:
        self._request = request
        self._path = path
        self._pending: dict[str, tuple[str, int | None]] = {}

    def _key(self, name: str) -> str:
        return f"{self._cookie_prefix}-{name}"

    def get_cookie(self, name: str) -> str | None:
        return self._request.get_cookie(self._key(name))

    def set_cookie(self, name: str, value: str | int, exp: int | None = 3600) -> None:
        self._pending[self._key(name)] = (str(value), exp)

    def delete_cookie(self, name: str) -> None:
        self._pending[self._key(name)] = ("", 0)

    def apply(self, response: Response) -> Response:
        secure = self._request.is_secure()
        for key, (value, max_age) in self._pending.items():
            response.set_cookie(key, value, max_age=max_age, path=self._path, secure=secure, httponly=True,
                                samesite="none" if secure else "lax")
        return response


class LtiRedirect(Redirect[Response]):
    """A 303 to ``location`` (the platform's authorization endpoint), with the pending cookies."""

    def __init__(self, location: str, cookies: LtiCookieService | None = None) -> None:
        self._location = location
        self._cookies = cookies

    def _finish(self, response: Response) -> Response:
        response.headers.update(NO_STORE)
        return self._cookies.apply(response) if self._cookies else response

    def do_redirect(self) -> Response:
        return self._finish(RedirectResponse(self._location, status_code=303))

    def do_js_redirect(self) -> Response:
        target = json.dumps(self._location).replace("<", "\\u003c")  # no "</script>" can close the tag
        return self._finish(HTMLResponse(f"<script>window.location = {target};</script>"))

    def set_redirect_url(self, location: str) -> None:
        self._location = location

    def get_redirect_url(self) -> str:
        return self._location
