"""What an administrator enters in the LMS to register the tool (``grader lti register``): the
tool's URLs, Canvas's developer-key JSON and Moodle's "Manually configure" fields. A pure
function of the public base URL: nothing is read from the configuration or the keys."""
from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

from .claims import LINEITEM_READ_SCOPE, LINEITEM_SCOPE, SCORE_SCOPE

# What the tool uses: no result.readonly, no names and roles.
SCOPES = [LINEITEM_SCOPE, LINEITEM_READ_SCOPE, SCORE_SCOPE]


def tool_configuration(base_url: str, title: str) -> dict[str, Any]:
    base = base_url.rstrip("/")
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"the base URL must be http(s)://host[/path], not {base_url!r}")
    login, launch, jwks = base + "/lti/login", base + "/lti/launch", base + "/lti/jwks"
    deep_link = {"message_type": "LtiDeepLinkingRequest", "target_link_uri": launch, "text": title}
    canvas = {
        "title": title,
        "description": f"{title}: JAX coding challenges, graded by the judge",
        "oidc_initiation_url": login,
        "target_link_uri": launch,
        "public_jwk_url": jwks,
        "scopes": SCOPES,
        "extensions": [{
            "platform": "canvas.instructure.com",
            "privacy_level": "public",  # name and email come with each launch
            "domain": parts.hostname,
            "tool_id": re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "jaxjudge",
            "settings": {"text": title, "placements": [
                {"placement": "assignment_selection", **deep_link},
                {"placement": "link_selection", **deep_link},
            ]},
        }],
        "custom_fields": {},
    }
    moodle = {
        "Tool name": title,
        "Tool URL": launch,
        "LTI version": "LTI 1.3",
        "Public key type": "Keyset URL",
        "Public keyset": jwks,
        "Initiate login URL": login,
        "Redirection URI(s)": launch,
        "Supports Deep Linking (Content-Item Message)": "yes",
        "Content Selection URL": launch,
        "IMS LTI Assignment and Grade Services": "Use this service for grade sync and column management",
        "IMS LTI Names and Role Provisioning": "Do not use this service",
        "Tool Settings": "Do not use this service",
        "Share launcher's name with tool": "Always",
        "Share launcher's email with tool": "Always",
        "Accept grades from the tool": "Always",
    }
    return {"title": title, "jwks_url": jwks, "login_url": login, "launch_url": launch, "redirect_uris": [launch],
            "deep_linking_url": launch, "scopes": SCOPES, "canvas": canvas, "moodle": moodle}


def format_text(configuration: dict[str, Any]) -> str:
    """The configuration for a terminal: the URLs, then each LMS's part, then what to copy back."""
    c = configuration
    lines = [f"LTI 1.3 registration of {c['title']}", "",
             f"  OIDC login URL (initiation):  {c['login_url']}",
             f"  Launch / redirect URL:        {c['launch_url']}",
             f"  Deep-linking URL:             {c['deep_linking_url']}",
             f"  Public keys (JWKS URL):       {c['jwks_url']}", "",
             "Canvas: Admin > Developer Keys > + Developer Key > LTI Key; Method \"Paste JSON\";",
             f"Redirect URIs: {' '.join(c['redirect_uris'])}; then turn the key on and add the app by its client ID.",
             json.dumps(c["canvas"], indent=2), "",
             "Moodle: Site administration > Plugins > Activity modules > External tool > Manage tools >",
             "configure a tool manually:"]
    width = max(len(k) for k in c["moodle"])
    lines += [f"  {k + ':':<{width + 1}} {v}" for k, v in c["moodle"].items()]
    lines += ["", "Then copy what the LMS shows into the tool's LTI configuration file, under the platform's issuer:",
              "  client_id, deployment_ids, auth_login_url, auth_token_url, key_set_url.",
              "  Canvas: issuer https://canvas.instructure.com, auth_login_url "
              "https://sso.canvaslms.com/api/lti/authorize_redirect,",
              "          auth_token_url https://sso.canvaslms.com/login/oauth2/token, "
              "key_set_url https://sso.canvaslms.com/api/lti/security/jwks",
              "  Moodle: issuer = the site's URL; its tool's \"View configuration details\" lists the other URLs."]
    return "\n".join(lines) + "\n"
