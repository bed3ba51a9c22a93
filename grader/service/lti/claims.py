"""What a validated launch says, as typed data (``Launch``), and the message claims it must
carry: LTI Core 1.3 §5.3 (required) and §5.4 (optional, checked when present), Deep Linking
2.0 §4.4 (the settings claim), AGS 2.0 §3.1 (the endpoint claim).

The roles are mapped from the LIS context-role URIs (LTI Core §A.2.2): a course's
Instructor, ContentDeveloper, Administrator and their sub-roles (a TeachingAssistant is
``membership/Instructor#TeachingAssistant``) are "instructor"; Learner and its sub-roles are
"learner". Institution and system roles (a faculty member who is a student in this course)
do not make anyone an instructor of this course; they are kept, unmapped, in ``role_uris``."""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast
from urllib.parse import urlsplit

from .errors import LtiRefusal

Role = Literal["learner", "instructor"]
MessageType = Literal["LtiResourceLinkRequest", "LtiDeepLinkingRequest"]
MESSAGE_TYPES: tuple[MessageType, ...] = ("LtiResourceLinkRequest", "LtiDeepLinkingRequest")

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
DL_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
AGS_ENDPOINT = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
AGS_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/"
SCORE_SCOPE = AGS_SCOPE + "score"
LINEITEM_SCOPE = AGS_SCOPE + "lineitem"
LINEITEM_READ_SCOPE = AGS_SCOPE + "lineitem.readonly"
_INSTRUCTOR = ("Instructor", "ContentDeveloper", "Administrator")
_MAX_ID = 255  # LTI Core: sub, deployment_id, resource_link.id and context.id are at most 255 characters


@dataclass(frozen=True)
class ContextClaim:
    id: str
    title: str | None
    label: str | None


@dataclass(frozen=True)
class ResourceLink:
    id: str
    title: str | None


@dataclass(frozen=True)
class AgsEndpoint:
    """Where scores go (AGS 2.0 §3.1): ``lineitem`` when the link has its own column, ``lineitems``
    (the container) when the tool may find or create one; ``scope`` is what the platform grants."""

    scope: tuple[str, ...]
    lineitems: str | None
    lineitem: str | None


@dataclass(frozen=True)
class DeepLinkSettings:
    return_url: str
    accept_types: tuple[str, ...]
    accept_multiple: bool
    data: Any
    title: str | None


@dataclass(frozen=True)
class Launch:
    """A launch that passed every check: who (``subject`` at ``issuer``), where (context,
    resource link) and what for (message type). ``launch_id`` names it in the tool's store."""

    launch_id: str
    message_type: MessageType
    issuer: str
    client_id: str
    deployment_id: str
    subject: str
    email: str | None
    name: str | None
    roles: frozenset[Role]
    role_uris: tuple[str, ...]
    context: ContextClaim | None
    resource_link: ResourceLink | None
    custom: Mapping[str, str]
    ags: AgsEndpoint | None
    target_link_uri: str
    deep_linking: DeepLinkSettings | None

    @property
    def is_instructor(self) -> bool:
        return "instructor" in self.roles


def map_roles(uris: list[str]) -> frozenset[Role]:
    roles: set[Role] = set()
    for uri in uris:
        # A bare "Instructor" is the deprecated simple name of the context role (LTI Core §A.2.2).
        if uri.startswith(MEMBERSHIP + "#"):
            name = uri[len(MEMBERSHIP) + 1:]
        elif uri.startswith(MEMBERSHIP + "/"):
            name = uri[len(MEMBERSHIP) + 1:].split("#", 1)[0]  # a sub-role: membership/Instructor#TeachingAssistant
        elif ":" not in uri and "/" not in uri:
            name = uri
        else:
            continue
        if name in _INSTRUCTOR:
            roles.add("instructor")
        elif name == "Learner":
            roles.add("learner")
    return frozenset(roles)


def _str(value: object, claim: str, required: bool, max_len: int | None = None) -> str | None:
    if value is None:
        if required:
            raise LtiRefusal(400, f"the id_token lacks the required claim {claim}")
        return None
    if not isinstance(value, str) or (required and not value):
        raise LtiRefusal(400, f"the claim {claim} must be a non-empty string")
    if max_len is not None and len(value) > max_len:
        raise LtiRefusal(400, f"the claim {claim} is longer than {max_len} characters")
    return value


def _obj(body: Mapping[str, Any], claim: str, required: bool) -> Mapping[str, Any] | None:
    value = body.get(claim)
    if value is None:
        if required:
            raise LtiRefusal(400, f"the id_token lacks the required claim {claim}")
        return None
    if not isinstance(value, dict):
        raise LtiRefusal(400, f"the claim {claim} must be a JSON object")
    return value


def _str_list(value: object, claim: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise LtiRefusal(400, f"the claim {claim} must be a list of strings")
    return value


def _custom(body: Mapping[str, Any]) -> dict[str, str]:
    custom = _obj(body, LTI + "custom", required=False) or {}
    if not all(isinstance(v, str) for v in custom.values()):  # LTI Core §5.4.6: the values are strings
        raise LtiRefusal(400, f"the claim {LTI}custom must map names to strings")
    return dict(custom)


def _name(body: Mapping[str, Any]) -> str | None:
    name = _str(body.get("name"), "name", False)
    if name:
        return name
    parts = [_str(body.get(k), k, False) for k in ("given_name", "family_name")]  # OIDC standard claims
    return " ".join(p for p in parts if p) or None


def _ags(body: Mapping[str, Any]) -> AgsEndpoint | None:
    claim = _obj(body, AGS_ENDPOINT, required=False)
    if claim is None:
        return None
    scope = _str_list(claim.get("scope", []), AGS_ENDPOINT + ".scope")
    return AgsEndpoint(scope=tuple(scope), lineitems=_str(claim.get("lineitems"), AGS_ENDPOINT + ".lineitems", False),
                       lineitem=_str(claim.get("lineitem"), AGS_ENDPOINT + ".lineitem", False))


def _deep_linking(body: Mapping[str, Any]) -> DeepLinkSettings:
    claim = _obj(body, DL_SETTINGS, required=True)
    assert claim is not None
    return_url = _str(claim.get("deep_link_return_url"), DL_SETTINGS + ".deep_link_return_url", True)
    parts = urlsplit(cast(str, return_url))
    # The URL becomes a form's action and a Content-Security-Policy source: http(s) and a plain host only.
    if parts.scheme not in ("http", "https") or not re.fullmatch(r"[A-Za-z0-9.\-]+(:[0-9]{1,5})?", parts.netloc):
        raise LtiRefusal(400, f"the claim {DL_SETTINGS}.deep_link_return_url must be an http(s) URL")
    accept = _str_list(claim.get("accept_types"), DL_SETTINGS + ".accept_types")
    if "ltiResourceLink" not in accept:
        raise LtiRefusal(400, "the platform does not accept ltiResourceLink items, the only kind this tool links")
    _str_list(claim.get("accept_presentation_document_targets"), DL_SETTINGS + ".accept_presentation_document_targets")
    multiple = claim.get("accept_multiple", True)
    return DeepLinkSettings(return_url=cast(str, return_url), accept_types=tuple(accept),
                            accept_multiple=multiple in (True, "true"), data=claim.get("data"),
                            title=_str(claim.get("title"), DL_SETTINGS + ".title", False))


def build_launch(body: Mapping[str, Any], launch_id: str, client_id: str, default_target: str) -> Launch:
    """The ``Launch`` of a signature-checked id_token body; :class:`LtiRefusal` names the first bad claim."""
    message_type = body.get(LTI + "message_type")
    if message_type not in MESSAGE_TYPES:
        raise LtiRefusal(400, f"the message_type {message_type!r} is not supported: this tool takes "
                              "LtiResourceLinkRequest and LtiDeepLinkingRequest")
    if body.get(LTI + "version") != "1.3.0":
        raise LtiRefusal(400, f"the claim {LTI}version must be '1.3.0'")
    deployment_id = _str(body.get(LTI + "deployment_id"), LTI + "deployment_id", True, _MAX_ID)
    subject = _str(body.get("sub"), "sub", True, _MAX_ID)
    roles = body.get(LTI + "roles")
    if roles is None:
        raise LtiRefusal(400, f"the id_token lacks the required claim {LTI}roles")
    role_uris = _str_list(roles, LTI + "roles")
    resource_link = None
    link = _obj(body, LTI + "resource_link", required=message_type == "LtiResourceLinkRequest")
    if link is not None:
        resource_link = ResourceLink(id=cast(str, _str(link.get("id"), LTI + "resource_link.id", True, _MAX_ID)),
                                     title=_str(link.get("title"), LTI + "resource_link.title", False))
    target = _str(body.get(LTI + "target_link_uri"), LTI + "target_link_uri",
                  message_type == "LtiResourceLinkRequest")
    context = None
    ctx = _obj(body, LTI + "context", required=False)
    if ctx is not None:
        context = ContextClaim(id=cast(str, _str(ctx.get("id"), LTI + "context.id", True, _MAX_ID)),
                          title=_str(ctx.get("title"), LTI + "context.title", False),
                          label=_str(ctx.get("label"), LTI + "context.label", False))
    platform = _obj(body, LTI + "tool_platform", required=False)
    if platform is not None:
        _str(platform.get("guid"), LTI + "tool_platform.guid", True, _MAX_ID)
    return Launch(launch_id=launch_id, message_type=cast(MessageType, message_type), issuer=cast(str, body["iss"]),
                  client_id=client_id, deployment_id=cast(str, deployment_id), subject=cast(str, subject),
                  email=_str(body.get("email"), "email", False), name=_name(body),
                  roles=map_roles(role_uris), role_uris=tuple(role_uris), context=context,
                  resource_link=resource_link, custom=_custom(body), ags=_ags(body),
                  target_link_uri=target or default_target,
                  deep_linking=_deep_linking(body) if message_type == "LtiDeepLinkingRequest" else None)
