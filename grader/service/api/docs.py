"""``/docs``: Swagger UI for the OpenAPI document, from the vendored swagger-ui-dist
(``web/static/vendor/swagger-ui``), never a CDN: a script fetched from another origin
would run with the judge's origin, where the session cookie and the API are. The page
has a policy of its own: scripts from this site plus the one inline script FastAPI
writes to start Swagger UI, allowed by its hash."""
from __future__ import annotations

import base64
import hashlib
import re

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse

VENDOR = "/static/vendor/swagger-ui"
VERSION = "5.35.0"  # of swagger-ui-dist; the ?v= makes a browser fetch an update anew
_INLINE = re.compile(r"<script>(.*?)</script>", re.S)


def _policy(html: str) -> str:
    hashes = " ".join("'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'"
                      for body in _INLINE.findall(html))
    # Swagger UI draws its icons as data: images.
    return (f"default-src 'none'; script-src 'self' {hashes}; style-src 'self'; "
            "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
            "frame-ancestors 'none'")


def add_docs(app: FastAPI, openapi_url: str, page_headers: dict) -> None:
    page = bytes(get_swagger_ui_html(
        openapi_url=openapi_url, title=f"{app.title} · API",
        swagger_js_url=f"{VENDOR}/swagger-ui-bundle.js?v={VERSION}",
        swagger_css_url=f"{VENDOR}/swagger-ui.css?v={VERSION}",
        swagger_favicon_url="data:,",
        # Its default sends the document to validator.swagger.io for a badge.
        swagger_ui_parameters={"validatorUrl": None}).body).decode()
    headers = {**page_headers, "Content-Security-Policy": _policy(page)}

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return HTMLResponse(page, headers=headers)
