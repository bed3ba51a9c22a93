"""Headers every answer carries unless its route set its own: ``nosniff``, so a browser
never takes a report, a CSV or an error (all of which hold text a submission wrote)
for HTML or script; a policy that lets such an answer do nothing even if a browser
rendered it, nor be framed (the pages and ``/docs`` send policies of their own); and
``no-store`` on the API, whose answers are one account's data."""
from __future__ import annotations

from starlette.datastructures import MutableHeaders

NOTHING = "default-src 'none'; frame-ancestors 'none'"


class SecurityHeaders:
    def __init__(self, app, api_prefix: str) -> None:
        self.app, self.api_prefix = app, api_prefix

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        api = scope["path"] == self.api_prefix or scope["path"].startswith(self.api_prefix + "/")

        async def sending(message):
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("X-Content-Type-Options", "nosniff")
                headers.setdefault("Content-Security-Policy", NOTHING)
                if api:
                    headers.setdefault("Cache-Control", "no-store")
            await send(message)

        return await self.app(scope, receive, sending)
