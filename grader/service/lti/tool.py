"""The LTI tool: its registrations, its public URL, its state store and the seam to the rest
of the service, the ``Provisioner`` the service implements (accounts, courses, memberships).

The tool trusts nothing of the request for its own URLs: the redirect_uri it sends at login
and the URLs it checks are built from ``base_url``, the address platforms were given."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

import requests

from .adapters import LtiRequest
from .claims import Launch
from .config import PlatformRegistration, ToolConfig
from .errors import CONFIGURATION, LtiRefusal
from .storage import ConsumableStorage, MemoryLaunchDataStorage

ITEM_PARAM = "jaxjudge_item"  # the custom parameter a deep-linked resource carries back on each of its launches


@dataclass(frozen=True)
class DeepLinkItem:
    """Something an instructor can place in a course: a problem id or an assignment slug.

    Its launches carry ``custom[ITEM_PARAM] == id``. With ``score_maximum``, the platform
    creates a gradebook column (a line item) for it, with ``id`` as its resourceId."""

    id: str
    title: str
    text: str | None = None
    score_maximum: float | None = None
    tag: str | None = None


class Provisioner(Protocol):
    """What the service does with a launch. Called in a worker thread; may block on the database."""

    def on_launch(self, launch: Launch) -> str:
        """Log the launch's user in (creating the account, the course and the membership as
        needed) and return the path (``/...`` on this site) to send the browser to. For a deep-
        linking launch, that is the picker, which posts its choice to ``/lti/deep-link`` with
        ``launch.launch_id``. Raise ``LtiRefusal`` to refuse the launch with a message."""
        ...

    def deep_link_items(self, launch: Launch, request: LtiRequest) -> Sequence[DeepLinkItem]:
        """The items this deep-linking launch may choose from, for the browser posting the choice
        (``request``: its form and cookies). Raise ``LtiRefusal`` when that browser may not answer
        the launch: the launch's ``launch_id`` is in the picker's URL, so it alone proves nothing."""
        ...

    def placed(self, launch: Launch, request: LtiRequest, items: Sequence[DeepLinkItem]) -> None:
        """``items`` (offered by ``deep_link_items``) go to the platform next, in the signed answer.
        Raise ``LtiRefusal`` to send nothing."""
        ...


class _TimeoutSession(requests.Session):
    """pylti1p3 fetches the platform's JWKS with a bare ``requests.Session``: no timeout, redirects
    followed. This one bounds both."""

    def __init__(self, timeout: float) -> None:
        super().__init__()
        self.timeout = timeout
        self.max_redirects = 3
        self.headers["User-Agent"] = "jaxjudge-lti"

    def request(self, method: Any, url: Any, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", self.timeout)
        return super().request(method, url, *args, **kwargs)


@dataclass
class LtiTool:
    config: ToolConfig
    base_url: str
    provisioner: Provisioner
    storage: ConsumableStorage = field(default_factory=MemoryLaunchDataStorage)
    # The OIDC state is checked against a cookie set at login (IMS Security Framework §5.1.1.1:
    # the state binds the launch to the browser that started it). A browser that blocks
    # third-party cookies in an iframe loses it; the platform must then open the tool in a window.
    bind_state_to_cookie: bool = True
    leeway: int = 60            # seconds of clock skew tolerated on exp and iat
    login_ttl: int = 300        # a launch must follow its login within this many seconds
    deep_link_ttl: int = 3600   # the picker has this long to post its choice
    jwks_ttl: int = 3600        # the platform's JWKS is cached this long (refetched early for an unknown kid)
    http_timeout: float = 10.0

    def __post_init__(self) -> None:
        self.base_url = self.base_url.rstrip("/")
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
            raise ValueError(f"the tool's base URL must be http(s)://host[/path], not {self.base_url!r}")

    @property
    def login_url(self) -> str:
        return self.base_url + "/lti/login"

    @property
    def launch_url(self) -> str:
        return self.base_url + "/lti/launch"

    @property
    def jwks_url(self) -> str:
        return self.base_url + "/lti/jwks"

    @property
    def deep_link_url(self) -> str:
        return self.base_url + "/lti/deep-link"

    @property
    def secure(self) -> bool:
        # What the browser sees, not what the proxy in front of us forwarded.
        return self.base_url.startswith("https://")

    @property
    def cookie_path(self) -> str:
        return (urlsplit(self.base_url).path or "") + "/lti"

    def is_own_url(self, url: str) -> bool:
        """Whether ``url`` is under ``base_url`` (same scheme, host and port, and path prefix)."""
        mine, other = urlsplit(self.base_url), urlsplit(url)
        base_path = mine.path.rstrip("/")
        return ((other.scheme, other.netloc.lower()) == (mine.scheme, mine.netloc.lower())
                and (other.path == base_path or other.path.startswith(base_path + "/")))

    def http_session(self) -> requests.Session:
        return _TimeoutSession(self.http_timeout)

    def registration(self, issuer: str, client_id: str | None) -> PlatformRegistration:
        """The registration for ``issuer`` (and ``client_id`` when given): LtiRefusal if none."""
        regs = self.config.for_issuer(issuer)
        if not regs:
            raise LtiRefusal(403, f"unknown issuer {issuer!r}: no platform is registered with this issuer",
                              CONFIGURATION)
        if client_id:
            reg = self.config.find(issuer, client_id)
            if reg is None:
                raise LtiRefusal(403, f"client_id {client_id!r} is not registered for issuer {issuer!r}",
                                  CONFIGURATION)
            return reg
        if len(regs) == 1:
            return regs[0]
        default = [r for r in regs if r.default]
        if len(default) != 1:
            raise LtiRefusal(400, f"issuer {issuer!r} has several registrations: the login must name its client_id")
        return default[0]

    def jwks(self) -> dict[str, Any]:
        return self.config.jwks()
