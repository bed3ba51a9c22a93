"""Scores to the platform's gradebook (Assignment and Grade Services 2.0).

With an access token from the platform's token endpoint (oauth.py), a score is POSTed to
``{lineitem}/scores``; when the launch gave only the line-item container, the line item is
found by resourceLinkId / tag / resourceId, or created. pylti1p3's ServiceConnector is not
used: it caches tokens forever, has no timeouts and raises on every HTTP failure. Here an
HTTP failure is a ``ScoreResult``."""
from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import httpx

from .claims import LINEITEM_READ_SCOPE as LINEITEM_READ
from .claims import LINEITEM_SCOPE as LINEITEM
from .claims import SCORE_SCOPE as SCORE
from .claims import AgsEndpoint
from .config import PlatformRegistration, ToolConfig
from .oauth import ServiceFailure, TokenCache, said

SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
CONTAINER_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
ActivityProgress = Literal["Initialized", "Started", "InProgress", "Submitted", "Completed"]
GradingProgress = Literal["FullyGraded", "Pending", "PendingManual", "Failed", "NotReady"]
_MAX_PAGES = 10


@dataclass(frozen=True)
class Score:
    """One score for one user (``user_id`` is the launch's ``sub``). ``timestamp`` must carry a timezone."""

    user_id: str
    score_given: float | None
    score_maximum: float
    activity_progress: ActivityProgress = "Completed"
    grading_progress: GradingProgress = "FullyGraded"
    timestamp: datetime | None = None
    comment: str | None = None

    def to_json(self) -> dict[str, Any]:
        when = self.timestamp or datetime.now(timezone.utc)
        if when.tzinfo is None:
            raise ValueError("Score.timestamp needs a timezone (AGS 2.0: an ISO 8601 time with its offset)")
        body: dict[str, Any] = {"userId": self.user_id, "scoreMaximum": self.score_maximum,
                                "activityProgress": self.activity_progress, "gradingProgress": self.grading_progress,
                                "timestamp": when.isoformat(timespec="milliseconds")}
        if self.score_given is not None:
            body["scoreGiven"] = self.score_given
        if self.comment:
            body["comment"] = self.comment
        return body


@dataclass(frozen=True)
class LineItemSpec:
    """The column to find (or create) when the launch named only the container."""

    label: str
    score_maximum: float
    resource_link_id: str | None = None
    resource_id: str | None = None
    tag: str | None = None


@dataclass(frozen=True)
class ScoreResult:
    """``ok``, or why not: ``status`` is the platform's HTTP status (None when none came back)."""

    ok: bool
    status: int | None
    message: str
    lineitem: str | None = None


def scores_url(lineitem: str) -> str:
    """AGS 2.0 §3.4: /scores is appended to the line item's path, its query kept (Moodle has one)."""
    parts = urlsplit(lineitem)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))


class AgsClient:
    def __init__(self, config: ToolConfig, timeout: float = 10.0, transport: httpx.BaseTransport | None = None) -> None:
        self._config = config
        self._http = httpx.Client(timeout=httpx.Timeout(timeout), transport=transport, follow_redirects=False,
                                  headers={"User-Agent": "jaxjudge-lti"})
        self._tokens = TokenCache(config, self._http)
        self._lineitems: OrderedDict[tuple[Any, ...], str] = OrderedDict()
        self._lock = threading.Lock()

    def close(self) -> None:
        self._http.close()

    def send_score(self, issuer: str, client_id: str, endpoint: AgsEndpoint, score: Score,
                   line_item: LineItemSpec | None = None) -> ScoreResult:
        """POST ``score``; never raises for an HTTP failure or a refusal: the result says what happened."""
        reg = self._config.find(issuer, client_id)
        if reg is None:
            return ScoreResult(False, None, f"no registration for issuer {issuer!r} and client_id {client_id!r}")
        if SCORE not in endpoint.scope:
            return ScoreResult(False, None, "the platform did not grant the AGS score scope to this link")
        scopes = tuple(sorted(s for s in (SCORE, LINEITEM, LINEITEM_READ) if s in endpoint.scope))
        lineitem = None
        try:
            lineitem = endpoint.lineitem or self._find_lineitem(reg, scopes, endpoint, line_item)
            response = self._authorized(reg, scopes, "POST", scores_url(lineitem), json_body=score.to_json(),
                                        content_type=SCORE_TYPE)
        except ServiceFailure as e:
            return ScoreResult(False, e.status, e.message, lineitem)
        except httpx.HTTPError as e:
            return ScoreResult(False, None, f"the platform could not be reached ({type(e).__name__})", lineitem)
        if response.status_code not in (200, 201, 202, 204):
            return ScoreResult(False, response.status_code, f"the score was refused: {said(response)}", lineitem)
        return ScoreResult(True, response.status_code, "the score was accepted", lineitem)

    def _authorized(self, reg: PlatformRegistration, scopes: tuple[str, ...], method: str, url: str,
                    json_body: dict[str, Any] | None = None, content_type: str | None = None,
                    accept: str | None = None, params: dict[str, str] | None = None) -> httpx.Response:
        headers = {"Accept": accept or "application/json"}
        if content_type:
            headers["Content-Type"] = content_type
        content = None if json_body is None else json.dumps(json_body).encode("utf-8")
        for attempt in range(2):
            token = self._tokens.get(reg, scopes)
            response = self._http.request(method, url, content=content, params=params,
                                          headers={**headers, "Authorization": f"Bearer {token}"})
            if response.status_code != 401 or attempt:
                return response
            self._tokens.drop(reg, scopes)  # revoked or expired early: one fresh token, then the answer stands
        raise AssertionError("unreachable")

    def _find_lineitem(self, reg: PlatformRegistration, scopes: tuple[str, ...], endpoint: AgsEndpoint,
                       spec: LineItemSpec | None) -> str:
        if not endpoint.lineitems or spec is None:
            raise ServiceFailure(None, "the launch names no line item: "
                                       "give the container's lineitems and a LineItemSpec")
        key = (endpoint.lineitems, spec.resource_link_id, spec.resource_id, spec.tag)
        with self._lock:
            if key in self._lineitems:
                return self._lineitems[key]
        found = self._search(reg, scopes, endpoint.lineitems, spec) if (LINEITEM in scopes
                                                                        or LINEITEM_READ in scopes) else None
        if found is None:
            found = self._create(reg, scopes, endpoint.lineitems, spec)
        with self._lock:
            self._lineitems[key] = found
            while len(self._lineitems) > 1000:
                self._lineitems.popitem(last=False)
        return found

    def _search(self, reg: PlatformRegistration, scopes: tuple[str, ...], url: str, spec: LineItemSpec) -> str | None:
        params = {k: v for k, v in (("resource_link_id", spec.resource_link_id), ("resource_id", spec.resource_id),
                                    ("tag", spec.tag)) if v}
        page: str | None = url
        for _ in range(_MAX_PAGES):
            if page is None:
                return None
            response = self._authorized(reg, scopes, "GET", page, accept=CONTAINER_TYPE,
                                        params=params if page == url else None)
            if response.status_code != 200:
                raise ServiceFailure(response.status_code, f"the line items could not be listed: {said(response)}")
            try:
                items = response.json()
            except ValueError:
                raise ServiceFailure(200, "the line-item container is not JSON") from None
            for item in items if isinstance(items, list) else []:
                # Filters are optional for the platform (AGS 2.0 §3.2.1): match again here.
                if (isinstance(item, dict) and isinstance(item.get("id"), str)
                        and all(item.get(f) == v for f, v in (("resourceLinkId", spec.resource_link_id),
                                                               ("resourceId", spec.resource_id), ("tag", spec.tag))
                                if v)):
                    return item["id"]
            next_link = response.links.get("next")
            page = next_link.get("url") if next_link else None
        return None

    def _create(self, reg: PlatformRegistration, scopes: tuple[str, ...], url: str, spec: LineItemSpec) -> str:
        if LINEITEM not in scopes:
            raise ServiceFailure(None, "no line item matches, and the platform did not grant "
                                       "the lineitem scope to add one")
        body: dict[str, Any] = {"scoreMaximum": spec.score_maximum, "label": spec.label}
        for field, value in (("resourceLinkId", spec.resource_link_id), ("resourceId", spec.resource_id),
                             ("tag", spec.tag)):
            if value:
                body[field] = value
        response = self._authorized(reg, scopes, "POST", url, json_body=body, content_type=LINEITEM_TYPE,
                                    accept=LINEITEM_TYPE)
        if response.status_code not in (200, 201):
            raise ServiceFailure(response.status_code, f"the line item could not be created: {said(response)}")
        try:
            created = response.json()["id"]
        except (ValueError, KeyError, TypeError):
            created = None
        if not isinstance(created, str):
            raise ServiceFailure(response.status_code, "the platform created a line item but gave no id")
        return created
