"""A simulated LTI 1.3 platform (an LMS) for the LTI tool's tests, on 127.0.0.1 and a free port.

It follows the IMS specifications message by message, and refuses what they forbid, so a
tool that passes here sends what Canvas and Moodle expect:

  GET  /jwks                    its public keys (the tool verifies id_tokens with them)
  GET  /auth                    the OIDC authorization endpoint (IMS Security Framework 1.0 §5.1.1.2-3):
                                checks the request, answers an auto-submitting form posting id_token + state
  POST /token                   OAuth2 client credentials with a JWT client assertion (RFC 7523, Security
                                Framework §4.1), verified against the tool's JWKS
  GET|POST /lineitems           AGS 2.0 line-item container (list, create)
  GET  /lineitems/{n}           a line item
  POST /lineitems/{n}/scores    AGS 2.0 score publish service: checks the token's scope and every field
  POST /deep_links              the deep-linking return URL (Deep Linking 2.0 §4.2): verifies the tool's JWT

``LaunchSpec`` describes the launch the next authorization answers (``resource_link``,
``deep_linking``, ``tampered``); ``browser_launch`` plays the browser with httpx. Every
request and score is recorded for the tests' assertions. ``ThreadedServer`` also serves the
tests' tool. Both stop by themselves (daemon threads) and on ``stop()``."""
from __future__ import annotations

import html
import json
import re
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal
from urllib.parse import parse_qsl

import httpx
import jwt
import uvicorn
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/"
ALL_SCOPES = (SCOPE + "lineitem", SCOPE + "lineitem.readonly", SCOPE + "score", SCOPE + "result.readonly")
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership#"
INSTITUTION = "http://purl.imsglobal.org/vocab/lis/v2/institution/person#"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
CONTAINER_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
Tamper = Literal["wrong_key", "unknown_kid", "wrong_aud", "expired", "future_iat", "missing_claim",
                 "unknown_deployment", "unknown_issuer", "replayed_nonce", "two_audiences"]


class RsaKey:
    def __init__(self, kid: str) -> None:
        self.kid = kid
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.pem = self.key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()).decode()

    def jwk(self) -> dict[str, Any]:
        return {**RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True), "kid": self.kid, "alg": "RS256",
                "use": "sig"}


class ThreadedServer:
    """An ASGI app served by uvicorn in a daemon thread, on a socket bound before the app exists
    (so its URL can go into the app's own configuration)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.base = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.server: uvicorn.Server | None = None
        self.thread: threading.Thread | None = None

    def start(self, app: Any, timeout: float = 10.0) -> ThreadedServer:
        config = uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False, timeout_keep_alive=2)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError(f"the server at {self.base} did not start")
            time.sleep(0.02)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        if self.server is not None:
            self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(timeout)
        self.sock.close()


@dataclass
class LaunchSpec:
    """The launch the platform signs at the next authorization whose lti_message_hint names it."""

    message_type: str = "LtiResourceLinkRequest"
    sub: str = "user-1"
    name: str | None = "Ada Learner"
    email: str | None = "ada@example.org"
    roles: list[str] = field(default_factory=lambda: [MEMBERSHIP + "Learner", INSTITUTION + "Student"])
    custom: dict[str, str] = field(default_factory=lambda: {"jaxjudge_item": "per_example_grad_clipping"})
    target_path: str = "/lti/launch"
    overrides: dict[str, Any] = field(default_factory=dict)  # claims replaced last; None deletes one
    header_kid: str | None = None
    sign_with: Literal["platform", "other"] = "platform"
    iat_offset: int = 0
    exp_offset: int = 300
    nonce: str | None = None  # None: the one the tool sent, as an honest platform does
    dl_data: str | None = "opaque-platform-data"
    context_id: str | None = "course-42"  # the LMS course launched from (None: no context claim)
    deployment_id: str | None = None  # None: the platform's first deployment
    ags: bool = True
    lineitem: bool = True  # the link has its own line item (else only the container is given)


def resource_link(**kw: Any) -> LaunchSpec:
    return LaunchSpec(**kw)


def deep_linking(**kw: Any) -> LaunchSpec:
    kw.setdefault("roles", [MEMBERSHIP + "Instructor", INSTITUTION + "Faculty"])
    kw.setdefault("sub", "teacher-1")
    kw.setdefault("name", "Grace Teacher")
    kw.setdefault("email", "grace@example.org")
    return LaunchSpec(message_type="LtiDeepLinkingRequest", custom={}, **kw)


def tampered(how: Tamper, claim: str = LTI + "roles", nonce: str | None = None, **kw: Any) -> LaunchSpec:
    """A resource-link launch spoiled one way: what each refusal test sends."""
    spec = resource_link(**kw)
    changes: dict[str, Any] = {
        "wrong_key": {"sign_with": "other"},
        "unknown_kid": {"sign_with": "other", "header_kid": "no-such-key"},
        "wrong_aud": {"overrides": {"aud": "some-other-tool"}},
        "two_audiences": {"overrides": {"aud": ["some-other-tool", "__client_id__"], "azp": "some-other-tool"}},
        "expired": {"iat_offset": -900, "exp_offset": -600},
        "future_iat": {"iat_offset": 900, "exp_offset": 1200},
        "missing_claim": {"overrides": {claim: None}},
        "unknown_deployment": {"overrides": {LTI + "deployment_id": "no-such-deployment"}},
        "unknown_issuer": {"overrides": {"iss": "https://lms.invalid"}},
        "replayed_nonce": {"nonce": nonce},
    }[how]
    return replace(spec, **changes)


def _bad(error: str, description: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": error, "error_description": description}, status_code=status)


def _iso8601_with_zone(value: object) -> bool:
    if not isinstance(value, str) or not re.search(r"T\d\d:\d\d:\d\d\.\d+", value):
        return False  # AGS 2.0: ISO 8601 with sub-second precision
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).tzinfo is not None
    except ValueError:
        return False


class Platform:
    """The LMS: one registered tool (``register_tool``), its launches, tokens, line items and scores."""

    def __init__(self) -> None:
        self.server = ThreadedServer()
        self.issuer = self.server.base
        self.key, self.other_key = RsaKey("platform-key-1"), RsaKey("platform-key-1")
        self.client_id, self.deployment_id = "jaxjudge-client", "deployment-1"
        # A second installation of the tool on the same platform (a Canvas sub-account, say).
        self.deployment_ids = [self.deployment_id, "deployment-2"]
        self.tool_base = ""
        self.specs: dict[str, LaunchSpec] = {}
        self.auth_requests: list[dict[str, str]] = []
        self.jwks_requests = 0
        self.token_requests: list[dict[str, Any]] = []
        self.tokens: dict[str, tuple[tuple[str, ...], float]] = {}
        self.used_jti: set[str] = set()
        self.lineitems: dict[int, dict[str, Any]] = {}
        self.scores: list[dict[str, Any]] = []
        self.deep_link_responses: list[dict[str, Any]] = []
        self.dl_data: set[str] = set()
        self.lock = threading.Lock()
        routes = [Route("/jwks", self.jwks), Route("/auth", self.auth, methods=["GET", "POST"]),
                  Route("/token", self.token, methods=["POST"]),
                  Route("/lineitems", self.container, methods=["GET", "POST"]),
                  Route("/lineitems/{n:int}", self.lineitem), Route("/lineitems/{n:int}/scores", self.score,
                                                                    methods=["POST"]),
                  Route("/deep_links", self.deep_link_return, methods=["POST"])]
        self.app = Starlette(routes=routes)
        self.add_lineitem("Per-example gradient clipping", 10.0, resource_link_id="link-1")

    # -- set-up -----------------------------------------------------------------------------------------

    def start(self, tool_base: str) -> Platform:
        self.tool_base = tool_base
        self.server.start(self.app)
        return self

    def stop(self) -> None:
        self.server.stop()

    @property
    def token_url(self) -> str:
        return self.issuer + "/token"

    def tool_config(self) -> dict[str, Any]:
        """This platform's entry in the tool's configuration file."""
        return {"client_id": self.client_id, "auth_login_url": self.issuer + "/auth", "auth_token_url": self.token_url,
                "key_set_url": self.issuer + "/jwks", "deployment_ids": list(self.deployment_ids)}

    def add_lineitem(self, label: str, maximum: float, **fields: str) -> str:
        with self.lock:
            n = len(self.lineitems) + 1
            # Moodle's line-item URLs carry a query: the tool must put /scores before it.
            url = f"{self.issuer}/lineitems/{n}?type_id=7"
            self.lineitems[n] = {"id": url, "label": label, "scoreMaximum": maximum, **fields}
        return url

    def prepare(self, spec: LaunchSpec) -> dict[str, str]:
        """The third-party login initiation for ``spec`` (LTI Core §4.1), to post to the tool's login URL."""
        hint = secrets.token_urlsafe(12)
        self.specs[hint] = spec
        return {"iss": self.issuer, "login_hint": spec.sub, "target_link_uri": self.tool_base + spec.target_path,
                "lti_message_hint": hint, "client_id": self.client_id,
                "lti_deployment_id": spec.deployment_id or self.deployment_id}

    # -- OIDC ------------------------------------------------------------------------------------------

    def rotate_key(self) -> None:
        """A new signing key under a new kid, as platforms do from time to time."""
        kid = f"platform-key-{self.jwks_requests + 2}"
        self.key, self.other_key = RsaKey(kid), RsaKey(kid)

    async def jwks(self, request: Request) -> Response:
        self.jwks_requests += 1
        return JSONResponse({"keys": [self.key.jwk()]})

    async def auth(self, request: Request) -> Response:
        params = dict(request.query_params)
        if request.method == "POST":
            params.update(parse_qsl((await request.body()).decode()))
        self.auth_requests.append(params)
        expected = {"scope": "openid", "response_type": "id_token", "response_mode": "form_post", "prompt": "none",
                    "client_id": self.client_id}
        for name, value in expected.items():
            if params.get(name) != value:
                return _bad("invalid_request", f"{name} must be {value!r}")
        if params.get("redirect_uri") != self.tool_base + "/lti/launch":
            return _bad("invalid_request", "redirect_uri is not registered for this client")
        for name in ("login_hint", "state", "nonce", "lti_message_hint"):
            if not params.get(name):
                return _bad("invalid_request", f"{name} is required")
        spec = self.specs.pop(params["lti_message_hint"], None)
        if spec is None or spec.sub != params["login_hint"]:
            return _bad("invalid_request", "lti_message_hint or login_hint does not match a launch in progress")
        token = self.id_token(spec, params["nonce"])
        page = (f'<form id="f" method="post" action="{html.escape(params["redirect_uri"])}">'
                f'<input type="hidden" name="id_token" value="{html.escape(token)}">'
                f'<input type="hidden" name="state" value="{html.escape(params["state"])}"></form>'
                '<script>document.getElementById("f").submit()</script>')
        return HTMLResponse(page)

    def claims(self, spec: LaunchSpec, nonce: str) -> dict[str, Any]:
        now = int(time.time())
        body: dict[str, Any] = {
            "iss": self.issuer, "aud": self.client_id, "sub": spec.sub, "iat": now + spec.iat_offset,
            "exp": now + spec.exp_offset, "nonce": spec.nonce or nonce, "name": spec.name, "email": spec.email,
            LTI + "message_type": spec.message_type, LTI + "version": "1.3.0",
            LTI + "deployment_id": spec.deployment_id or self.deployment_id,
            LTI + "target_link_uri": self.tool_base + spec.target_path, LTI + "roles": spec.roles,
            LTI + "tool_platform": {"guid": "platform-guid-1", "name": "Simulated LMS"},
            LTI + "launch_presentation": {"document_target": "iframe"},
            LTI + "custom": spec.custom,
        }
        if spec.context_id is not None:
            labels = {"course-42": ("JAX101", "Differentiable programming")}
            label, title = labels.get(spec.context_id, (spec.context_id.upper(), f"LMS course {spec.context_id}"))
            body[LTI + "context"] = {"id": spec.context_id, "label": label, "title": title,
                                     "type": ["http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"]}
        if spec.message_type == "LtiResourceLinkRequest":
            body[LTI + "resource_link"] = {"id": "link-1", "title": "Gradient clipping"}
            if spec.ags:
                body[AGS] = {"scope": [SCOPE + "lineitem", SCOPE + "score", SCOPE + "lineitem.readonly"],
                             "lineitems": self.issuer + "/lineitems"}
                if spec.lineitem:
                    body[AGS]["lineitem"] = self.lineitems[1]["id"]
        else:
            settings: dict[str, Any] = {"deep_link_return_url": self.issuer + "/deep_links",
                                        "accept_types": ["ltiResourceLink"],
                                        "accept_presentation_document_targets": ["iframe", "window"],
                                        "accept_multiple": False, "auto_create": True}
            if spec.dl_data is not None:
                settings["data"] = spec.dl_data
                self.dl_data.add(spec.dl_data)
            body[DL + "deep_linking_settings"] = settings
        for claim, value in spec.overrides.items():
            if value is None:
                body.pop(claim, None)
            else:
                body[claim] = [self.client_id if v == "__client_id__" else v for v in value] \
                    if isinstance(value, list) else value
        return {k: v for k, v in body.items() if v is not None}

    def id_token(self, spec: LaunchSpec, nonce: str) -> str:
        key = self.key if spec.sign_with == "platform" else self.other_key
        return jwt.encode(self.claims(spec, nonce), key.pem, algorithm="RS256",
                          headers={"kid": spec.header_kid or key.kid})

    # -- OAuth2 client credentials ----------------------------------------------------------------------

    async def _tool_key(self, kid: str | None) -> Any:
        async with httpx.AsyncClient(timeout=5) as client:
            keys = (await client.get(self.tool_base + "/lti/jwks")).json()["keys"]
        for k in keys:
            if k.get("kid") == kid:
                return RSAAlgorithm.from_jwk(json.dumps(k))
        return None

    async def token(self, request: Request) -> Response:
        form = dict(parse_qsl((await request.body()).decode()))
        record: dict[str, Any] = {"form": {k: v for k, v in form.items() if k != "client_assertion"}}
        self.token_requests.append(record)
        if form.get("grant_type") != "client_credentials":
            return _bad("unsupported_grant_type", "grant_type must be client_credentials")
        if form.get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer":
            return _bad("invalid_request", "client_assertion_type must be jwt-bearer (RFC 7523)")
        assertion = form.get("client_assertion", "")
        try:
            key = await self._tool_key(jwt.get_unverified_header(assertion).get("kid"))
            if key is None:
                return _bad("invalid_client", "no key of the tool's JWKS has the assertion's kid", 401)
            claims = jwt.decode(assertion, key, algorithms=["RS256"], audience=self.token_url, issuer=self.client_id,
                                options={"require": ["iss", "sub", "aud", "exp", "iat", "jti"]})
        except jwt.InvalidTokenError as e:
            return _bad("invalid_client", f"the client assertion does not verify: {e}", 401)
        if claims["sub"] != self.client_id:
            return _bad("invalid_client", "the assertion's sub must be the client_id", 401)
        with self.lock:
            if claims["jti"] in self.used_jti:
                return _bad("invalid_client", "the assertion's jti was used before", 401)
            self.used_jti.add(claims["jti"])
        scopes = tuple(form.get("scope", "").split())
        if not scopes or any(s not in ALL_SCOPES for s in scopes):
            return _bad("invalid_scope", "the scope is empty or names a scope this client was not granted")
        record["assertion"] = claims
        access = secrets.token_urlsafe(24)
        self.tokens[access] = (scopes, time.time() + 3600)
        return JSONResponse({"access_token": access, "token_type": "Bearer", "expires_in": 3600,
                             "scope": " ".join(scopes)})

    def _granted(self, request: Request, *needed: str) -> tuple[str, ...] | Response:
        auth = request.headers.get("authorization", "")
        scopes, expires = self.tokens.get(auth[7:] if auth.startswith("Bearer ") else "", ((), 0.0))
        if expires < time.time():
            return JSONResponse({"error": "invalid_token"}, status_code=401)
        if not any(SCOPE + n in scopes for n in needed):
            return JSONResponse({"error": "insufficient_scope"}, status_code=403)
        return scopes

    # -- Assignment and Grade Services ------------------------------------------------------------------

    async def container(self, request: Request) -> Response:
        if request.method == "GET":
            granted = self._granted(request, "lineitem", "lineitem.readonly")
            if isinstance(granted, Response):
                return granted
            q = request.query_params
            items = [i for i in self.lineitems.values()
                     if all(i.get(f) == q[p] for p, f in (("resource_link_id", "resourceLinkId"),
                                                          ("resource_id", "resourceId"), ("tag", "tag")) if p in q)]
            return JSONResponse(items, media_type=CONTAINER_TYPE)
        granted = self._granted(request, "lineitem")
        if isinstance(granted, Response):
            return granted
        if request.headers.get("content-type") != LINEITEM_TYPE:
            return JSONResponse({"error": f"Content-Type must be {LINEITEM_TYPE}"}, status_code=415)
        item = json.loads(await request.body())
        maximum = item.get("scoreMaximum")
        if not item.get("label") or not isinstance(maximum, (int, float)) or maximum <= 0:
            return JSONResponse({"error": "a line item needs a label and a positive scoreMaximum"}, status_code=400)
        url = self.add_lineitem(item.pop("label"), float(item.pop("scoreMaximum")),
                                **{k: v for k, v in item.items() if k in ("resourceLinkId", "resourceId", "tag")})
        return JSONResponse(self.lineitems[len(self.lineitems)], status_code=201, media_type=LINEITEM_TYPE,
                            headers={"Location": url})

    async def lineitem(self, request: Request) -> Response:
        granted = self._granted(request, "lineitem", "lineitem.readonly")
        if isinstance(granted, Response):
            return granted
        item = self.lineitems.get(request.path_params["n"])
        return JSONResponse(item, media_type=LINEITEM_TYPE) if item else JSONResponse({}, status_code=404)

    async def score(self, request: Request) -> Response:
        granted = self._granted(request, "score")
        if isinstance(granted, Response):
            return granted
        n = request.path_params["n"]
        if n not in self.lineitems:
            return JSONResponse({"error": "no such line item"}, status_code=404)
        if request.headers.get("content-type") != SCORE_TYPE:
            return JSONResponse({"error": f"Content-Type must be {SCORE_TYPE}"}, status_code=415)
        score = json.loads(await request.body())
        problems = []
        if not isinstance(score.get("userId"), str) or not score["userId"]:
            problems.append("userId")
        if score.get("activityProgress") not in ("Initialized", "Started", "InProgress", "Submitted", "Completed"):
            problems.append("activityProgress")
        if score.get("gradingProgress") not in ("FullyGraded", "Pending", "PendingManual", "Failed", "NotReady"):
            problems.append("gradingProgress")
        if not _iso8601_with_zone(score.get("timestamp")):
            problems.append("timestamp")
        if "scoreGiven" in score:
            given, maximum = score["scoreGiven"], score.get("scoreMaximum")
            if not isinstance(given, (int, float)) or given < 0:
                problems.append("scoreGiven")
            if not isinstance(maximum, (int, float)) or maximum <= 0:
                problems.append("scoreMaximum")
        if problems:
            return JSONResponse({"error": f"invalid score fields: {', '.join(problems)}"}, status_code=400)
        self.scores.append({"lineitem": n, "query": dict(request.query_params), "score": score, "scopes": granted})
        return Response(status_code=204)

    # -- Deep Linking ---------------------------------------------------------------------------------

    async def deep_link_return(self, request: Request) -> Response:
        form = dict(parse_qsl((await request.body()).decode()))
        token = form.get("JWT", "")
        try:
            key = await self._tool_key(jwt.get_unverified_header(token).get("kid"))
            if key is None:
                return _bad("invalid_request", "no key of the tool's JWKS has the response's kid")
            claims = self.verify_deep_link_response(token, key)
        except (jwt.InvalidTokenError, ValueError) as e:
            return _bad("invalid_request", f"the deep-linking response is refused: {e}")
        self.deep_link_responses.append(claims)
        return HTMLResponse(f"<p>{len(claims[DL + 'content_items'])} item(s) added</p>")

    def verify_deep_link_response(self, token: str, key: Any) -> dict[str, Any]:
        """Deep Linking 2.0 §4.2: the response's required claims, signed by the tool."""
        claims = jwt.decode(token, key, algorithms=["RS256"], audience=self.issuer, issuer=self.client_id,
                            options={"require": ["iss", "aud", "exp", "iat", "nonce"]})
        if claims.get(LTI + "message_type") != "LtiDeepLinkingResponse":
            raise ValueError("message_type must be LtiDeepLinkingResponse")
        if claims.get(LTI + "version") != "1.3.0":
            raise ValueError("version must be 1.3.0")
        if claims.get(LTI + "deployment_id") not in self.deployment_ids:
            raise ValueError("deployment_id is not a deployment of this tool")
        items = claims.get(DL + "content_items", [])
        if not isinstance(items, list) or not all(isinstance(i, dict) and i.get("type") for i in items):
            raise ValueError("content_items must be a list of typed items")
        for item in items:
            line = item.get("lineItem")
            if item["type"] == "ltiResourceLink" and line is not None and not (
                    isinstance(line.get("scoreMaximum"), (int, float)) and line["scoreMaximum"] > 0):
                raise ValueError("a lineItem needs a positive scoreMaximum")
        data = claims.get(DL + "data")
        if data is not None and data not in self.dl_data:
            raise ValueError("data is not what the request carried")
        return claims


@dataclass
class AutoPostForm:
    action: str
    fields: dict[str, str]


def parse_form(page: str) -> AutoPostForm:
    """The auto-submitting form of a page (what a browser would post)."""
    action = re.search(r'<form[^>]*action="([^"]*)"', page)
    if action is None:
        raise AssertionError(f"no form in the page: {page[:300]}")
    fields = {html.unescape(n): html.unescape(v)
              for n, v in re.findall(r'<input[^>]*name="([^"]*)"[^>]*value="([^"]*)"', page)}
    return AutoPostForm(html.unescape(action.group(1)), fields)


def browser_launch(client: httpx.Client, platform: Platform, spec: LaunchSpec,
                   login: dict[str, str] | None = None) -> httpx.Response:
    """Login initiation → the platform's authorization → the form post to the tool: the tool's last answer
    (or the first answer that is not the next step)."""
    r = client.post(platform.tool_base + "/lti/login", data=login or platform.prepare(spec))
    if r.status_code != 303:
        return r
    auth = client.get(r.headers["location"])
    if auth.status_code != 200:
        raise AssertionError(f"the platform refused the authorization request: {auth.text}")
    form = parse_form(auth.text)
    return client.post(form.action, data=form.fields)


def link_lms_course(site: Any, sub: str, email: str, course: str = "ml",
                    context_id: str = "course-42") -> httpx.Client:
    """How an instructor links an LMS course to a judge course, the legitimate way, on a judge
    made by ``service_support.lti_judge`` (``site``): a deep-linking launch from the LMS course
    as its Instructor ``sub``, an instructor invitation to the judge course (from
    ``site.teacher``) accepted in that launch's session, then the link made from the picker.
    Returns the instructor's browser, logged in (its CSRF token in ``headers``)."""
    browser = httpx.Client(timeout=30, follow_redirects=False)
    launched = browser_launch(browser, site.platform, deep_linking(sub=sub, email=email, context_id=context_id))
    assert launched.status_code == 303, launched.text
    me = browser.post(site.base + "/api/v1/auth/lti-ticket", json={"ticket": launched.headers["location"]
                                                                    .partition("#")[2]})
    assert me.status_code == 200, me.text
    browser.headers["X-CSRF-Token"] = me.json()["csrf_token"]
    launch_id = me.json()["next"].partition("launch=")[2]
    with site.client(site.teacher) as t:
        code = t.post(f"/courses/{course}/invitations", json={"role": "instructor"}).json()["code"]
    joined = browser.post(site.base + "/api/v1/join", json={"code": code})
    assert joined.status_code == 200 and joined.json()["role"] == "instructor", joined.text
    bound = browser.post(site.base + "/api/v1/lti/contexts", json={"launch_id": launch_id, "course": course})
    assert bound.status_code == 201, bound.text
    return browser
