"""The answer to a deep-linking launch (Deep Linking 2.0 §4.2): an ``LtiDeepLinkingResponse``
JWT signed with the tool's key, auto-posted by the browser to the platform's return URL.

Its claims: iss = the tool's client_id, aud = the platform's issuer, iat, exp, nonce,
deployment_id, message_type, version, content_items (one ``ltiResourceLink`` per chosen
item, with a lineItem when the item is graded) and, when the request had one, its data
claim returned unchanged. pylti1p3's ``DeepLink`` builds and signs it; the form is ours
because pylti1p3's interpolates the return URL and the JWT into HTML unescaped."""
from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Sequence
from urllib.parse import urlsplit

from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.lineitem import LineItem

from .adapters import LtiRequest
from .claims import Launch
from .errors import LtiRefusal
from .launch import JudgeMessageLaunch
from .tool import ITEM_PARAM, DeepLinkItem, LtiTool

MAX_ITEMS = 50
_SUBMIT = 'document.getElementById("lti-deep-link").submit();'


class _Resource(DeepLinkResource):
    """pylti1p3's resource lacks the optional ``text`` (a description shown by the platform)."""

    def __init__(self, text: str | None) -> None:
        self._text = text

    def to_dict(self) -> dict[str, object]:
        item = super().to_dict()
        if self._text:
            item["text"] = self._text
        return item


def content_item(tool: LtiTool, item: DeepLinkItem) -> DeepLinkResource:
    resource = (_Resource(item.text).set_title(item.title).set_url(tool.launch_url)
                .set_custom_params({ITEM_PARAM: item.id}))
    if item.score_maximum is not None:
        line = LineItem().set_score_maximum(item.score_maximum).set_label(item.title).set_resource_id(item.id)
        if item.tag:
            line.set_tag(item.tag)
        resource.set_lineitem(line)
    return resource


def response_jwt(tool: LtiTool, request: LtiRequest, launch_id: str, item_ids: Sequence[str]) -> tuple[str, str]:
    """(return URL, signed JWT) for the items chosen in the deep-linking launch ``launch_id``.

    The launch is used up: a second answer to one request would add the items twice."""
    restored = JudgeMessageLaunch.restore(request, tool, launch_id)
    launch = restored.launch
    if launch is None or launch.deep_linking is None:
        raise LtiRefusal(400, "this launch is not a deep-linking request")
    if not item_ids:
        raise LtiRefusal(400, "no item was chosen")
    if len(item_ids) > MAX_ITEMS or (len(item_ids) > 1 and not launch.deep_linking.accept_multiple):
        raise LtiRefusal(400, "the platform accepts one item here" if not launch.deep_linking.accept_multiple
                         else f"at most {MAX_ITEMS} items can be linked at once")
    offered = {i.id: i for i in tool.provisioner.deep_link_items(launch, request)}
    unknown = [i for i in item_ids if i not in offered]
    if unknown:
        raise LtiRefusal(400, f"item {unknown[0]!r} is not one this launch may link")
    chosen = [offered[i] for i in item_ids]
    tool.provisioner.placed(launch, request, chosen)
    deep_link = restored.get_deep_link()
    message = deep_link.get_message_jwt([content_item(tool, item) for item in chosen])
    data_claim = "https://purl.imsglobal.org/spec/lti-dl/claim/data"
    if message.get(data_claim) is None:  # §4.2: returned only when the request carried it
        message.pop(data_claim, None)
    token = deep_link.encode_jwt(message)
    tool.storage.delete_value(launch_id)
    return launch.deep_linking.return_url, token


def pending_launch(tool: LtiTool, launch_id: str) -> Launch:
    """The deep-linking launch ``launch_id`` while it waits for its answer: LtiRefusal (400) once
    answered, expired or never made."""
    launch = JudgeMessageLaunch.restore(LtiRequest({}, {}, tool.secure), tool, launch_id).launch
    if launch is None or launch.deep_linking is None:
        raise LtiRefusal(400, "this launch is not a deep-linking request")
    return launch


def auto_post_form(return_url: str, token: str) -> tuple[str, dict[str, str]]:
    """The page that posts ``JWT`` to the platform (a button should scripts be off), and its headers.

    Its policy of its own (the service's default allows nothing): this one script, by hash; a
    form to the platform only; framed by the platform only, since the picker runs in its iframe."""
    action, value = html.escape(return_url, quote=True), html.escape(token, quote=True)
    page = ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Returning to the course</title></head><body>"
            f"<form id=\"lti-deep-link\" action=\"{action}\" method=\"post\">"
            f"<input type=\"hidden\" name=\"JWT\" value=\"{value}\"><button type=\"submit\">Continue</button></form>"
            f"<script>{_SUBMIT}</script></body></html>")
    digest = base64.b64encode(hashlib.sha256(_SUBMIT.encode()).digest()).decode()
    parts = urlsplit(return_url)
    origin = f"{parts.scheme}://{parts.netloc}"
    policy = f"default-src 'none'; script-src 'sha256-{digest}'; form-action {origin}; frame-ancestors {origin}"
    return page, {"Content-Security-Policy": policy, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
