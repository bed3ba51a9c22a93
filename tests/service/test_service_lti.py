"""The LTI 1.3 tool (grader/service/lti) against a simulated platform (lti_platform.py), both
live on 127.0.0.1: the OIDC login and the launch, every refusal, deep linking, and scores
through Assignment and Grade Services. The tool runs in a minimal FastAPI app with an
in-memory provisioner, not the judge's app: the service wires its own provisioner."""
from __future__ import annotations

import html
import json
import os
import re
import stat
from dataclasses import dataclass, field
from types import SimpleNamespace
from urllib.parse import parse_qs, urlsplit

import pytest

pytest.importorskip("pylti1p3", reason="LTI needs the serve extra: pip install -e '.[test,serve]'")
pytest.importorskip("fastapi", reason="LTI needs the serve extra: pip install -e '.[test,serve]'")
import httpx  # noqa: E402
import jwt  # noqa: E402
from fastapi import FastAPI  # noqa: E402
from jwt.algorithms import RSAAlgorithm  # noqa: E402

from grader.service.lti.adapters import MAX_BODY, LtiRequest  # noqa: E402
from grader.service.lti.ags import AgsClient, LineItemSpec, Score  # noqa: E402
from grader.service.lti.claims import AgsEndpoint, Launch, map_roles  # noqa: E402
from grader.service.lti.config import LtiConfigError, generate_key_pair, load_tool_config  # noqa: E402
from grader.service.lti.errors import LtiRefusal  # noqa: E402
from grader.service.lti.keys import digest  # noqa: E402
from grader.service.lti.register import format_text, tool_configuration  # noqa: E402
from grader.service.lti.routes import build_router  # noqa: E402
from grader.service.lti.storage import MemoryLaunchDataStorage  # noqa: E402
from grader.service.lti.tool import ITEM_PARAM, DeepLinkItem, LtiTool  # noqa: E402
from lti_platform import (DL, INSTITUTION, LTI, MEMBERSHIP, SCOPE, Platform, ThreadedServer,  # noqa: E402
                          browser_launch, deep_linking, parse_form, resource_link, tampered)

PROBLEM = "per_example_grad_clipping"


@dataclass
class MemoryProvisioner:
    """The service's seam, in memory: records each launch, sends the browser to a made-up page."""

    launches: list[Launch] = field(default_factory=list)
    placements: list[list[str]] = field(default_factory=list)
    items: list[DeepLinkItem] = field(default_factory=lambda: [
        DeepLinkItem(PROBLEM, "Per-example gradient clipping", text="vmap and grad", score_maximum=10.0,
                     tag="jaxjudge"),
        DeepLinkItem("ungraded_intro", "An ungraded introduction")])

    def on_launch(self, launch: Launch) -> str:
        if launch.custom.get("refuse"):
            raise LtiRefusal(403, "this course is closed")
        self.launches.append(launch)
        if launch.message_type == "LtiDeepLinkingRequest":
            return f"/judge/pick?launch={launch.launch_id}"
        return f"/judge/problems/{launch.custom.get(ITEM_PARAM, '')}"

    def deep_link_items(self, launch: Launch, request: LtiRequest) -> list[DeepLinkItem]:
        return self.items

    def placed(self, launch: Launch, request: LtiRequest, items: list[DeepLinkItem]) -> None:
        self.placements.append([i.id for i in items])


@pytest.fixture(scope="module")
def lti(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lti")
    generate_key_pair(folder / "tool-private.pem", folder / "tool-public.pem")
    platform = Platform()
    (folder / "lti.json").write_text(json.dumps({platform.issuer: {
        **platform.tool_config(), "private_key_file": "tool-private.pem", "public_key_file": "tool-public.pem"}}))
    server = ThreadedServer()
    provisioner = MemoryProvisioner()
    tool = LtiTool(load_tool_config(folder / "lti.json"), server.base, provisioner)
    app = FastAPI()
    app.include_router(build_router(tool))
    server.start(app)
    platform.start(server.base)
    yield SimpleNamespace(platform=platform, tool=tool, provisioner=provisioner, base=server.base, folder=folder)
    platform.stop()
    server.stop()


@pytest.fixture
def browser():
    with httpx.Client(timeout=10, follow_redirects=False) as client:
        yield client


def refusal(response: httpx.Response) -> tuple[str, str]:
    """The reason and the advice of a refusal page (the LMS's browser shows it)."""
    assert response.headers["content-type"].startswith("text/html"), response.headers
    found = {k: html.unescape(re.sub(r"<[^>]+>", "", v)) for k, v in
             re.findall(r'<p id="(lti-refusal|lti-advice)">(.*?)</p>', response.text, re.S)}
    return found["lti-refusal"], found["lti-advice"]


def _refused(response: httpx.Response, status: int, *words: str) -> str:
    assert response.status_code == status, (response.status_code, response.text)
    detail, advice = refusal(response)
    assert advice
    for word in words:
        assert word in detail, detail
    return detail


# -- the launch ------------------------------------------------------------------------------------


def test_login_redirects_to_the_platform_with_state_and_nonce(lti, browser):
    login = lti.platform.prepare(resource_link())
    r = browser.get(lti.base + "/lti/login", params=login)  # GET and POST are both initiations
    assert r.status_code == 303
    url = urlsplit(r.headers["location"])
    assert f"{url.scheme}://{url.netloc}{url.path}" == lti.platform.issuer + "/auth"
    q = {k: v[0] for k, v in parse_qs(url.query).items()}
    assert q["scope"] == "openid" and q["response_type"] == "id_token" and q["response_mode"] == "form_post"
    assert q["prompt"] == "none" and q["client_id"] == lti.platform.client_id
    assert q["redirect_uri"] == lti.base + "/lti/launch"
    assert q["login_hint"] == login["login_hint"] and q["lti_message_hint"] == login["lti_message_hint"]
    assert len(q["nonce"]) >= 32 and q["state"].startswith("state-")
    cookie = browser.cookies.get(f"lti1p3-{q['state']}")
    assert cookie == q["state"]
    assert "httponly" in r.headers["set-cookie"].lower() and r.headers["cache-control"] == "no-store"


def test_a_launch_reaches_the_provisioner_with_a_typed_launch(lti, browser):
    spec = resource_link(roles=[MEMBERSHIP + "Learner", INSTITUTION + "Instructor"])
    r = browser_launch(browser, lti.platform, spec)
    assert r.status_code == 303, r.text
    assert r.headers["location"] == f"/judge/problems/{PROBLEM}"
    launch = lti.provisioner.launches[-1]
    assert launch.message_type == "LtiResourceLinkRequest"
    assert (launch.issuer, launch.client_id, launch.deployment_id) == (
        lti.platform.issuer, lti.platform.client_id, lti.platform.deployment_id)
    assert (launch.subject, launch.email, launch.name) == ("user-1", "ada@example.org", "Ada Learner")
    # An institution role does not make a course's learner its instructor.
    assert launch.roles == {"learner"} and not launch.is_instructor
    assert INSTITUTION + "Instructor" in launch.role_uris
    assert (launch.context.id, launch.context.label, launch.context.title) == (
        "course-42", "JAX101", "Differentiable programming")
    assert (launch.resource_link.id, launch.resource_link.title) == ("link-1", "Gradient clipping")
    assert launch.custom == {ITEM_PARAM: PROBLEM}
    assert launch.ags.lineitem == lti.platform.lineitems[1]["id"]
    assert launch.ags.lineitems == lti.platform.issuer + "/lineitems" and SCOPE + "score" in launch.ags.scope
    assert launch.target_link_uri == lti.base + "/lti/launch" and launch.deep_linking is None
    assert 'max-age=0' in r.headers["set-cookie"].lower()  # the state cookie is spent


def test_a_teaching_assistant_is_an_instructor():
    assert map_roles([MEMBERSHIP + "Instructor"]) == {"instructor"}
    assert map_roles(["http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"]) == {
        "instructor"}
    assert map_roles(["http://purl.imsglobal.org/vocab/lis/v2/membership/Learner#NonCreditLearner"]) == {"learner"}
    assert map_roles(["Learner", MEMBERSHIP + "ContentDeveloper"]) == {"learner", "instructor"}
    assert map_roles([INSTITUTION + "Faculty", "http://purl.imsglobal.org/vocab/lis/v2/system/person#Administrator",
                      MEMBERSHIP + "Mentor"]) == set()


def test_a_replayed_launch_is_refused(lti, browser):
    r = browser.post(lti.base + "/lti/login", data=lti.platform.prepare(resource_link()))
    form = parse_form(browser.get(r.headers["location"]).text)
    assert browser.post(form.action, data=form.fields).status_code == 303
    before = len(lti.provisioner.launches)
    _refused(browser.post(form.action, data=form.fields), 400, "state", "already used")
    assert len(lti.provisioner.launches) == before


def test_a_replayed_nonce_is_refused(lti, browser):
    assert browser_launch(browser, lti.platform, resource_link()).status_code == 303
    used = lti.platform.auth_requests[-1]["nonce"]
    _refused(browser_launch(browser, lti.platform, tampered("replayed_nonce", nonce=used)), 400, "nonce",
             "already used")
    _refused(browser_launch(browser, lti.platform, tampered("replayed_nonce", nonce="never-issued")), 400, "nonce",
             "not the one sent")


@pytest.mark.parametrize("how, status, words", [
    ("wrong_key", 401, ("signature",)),
    ("unknown_kid", 401, ("no key", "no-such-key")),
    ("wrong_aud", 401, ("audience", "aud")),
    ("two_audiences", 401, ("azp",)),
    ("expired", 401, ("expired",)),
    ("future_iat", 401, ("not valid yet",)),
    ("unknown_deployment", 403, ("deployment_id", "no-such-deployment")),
    ("unknown_issuer", 403, ("unknown issuer", "lms.invalid")),
])
def test_a_tampered_launch_is_refused(lti, browser, how, status, words):
    before = len(lti.provisioner.launches)
    r = browser_launch(browser, lti.platform, tampered(how))
    _refused(r, status, *words)
    if how in ("unknown_deployment", "unknown_issuer"):  # the two sides' registrations differ
        assert "configuration file" in refusal(r)[1]
    assert len(lti.provisioner.launches) == before


@pytest.mark.parametrize("claim", [LTI + "roles", LTI + "resource_link", LTI + "deployment_id", LTI + "version",
                                   LTI + "message_type", LTI + "target_link_uri", "sub", "nonce", "exp", "iat"])
def test_a_launch_without_a_required_claim_is_refused(lti, browser, claim):
    short = claim.rsplit("/", 1)[-1]
    _refused(browser_launch(browser, lti.platform, tampered("missing_claim", claim=claim)), 400, short)


def test_a_launch_from_another_browser_is_refused(lti, browser):
    r = browser.post(lti.base + "/lti/login", data=lti.platform.prepare(resource_link()))
    form = parse_form(browser.get(r.headers["location"]).text)
    with httpx.Client(timeout=10) as other:  # no state cookie
        r = other.post(form.action, data=form.fields)
        _refused(r, 400, "state cookie")
    assert "new window" in refusal(r)[1]  # what to tell the LMS administrator


def test_logins_are_checked(lti, browser):
    login = lti.platform.prepare(resource_link())
    _refused(browser.post(lti.base + "/lti/login", data={**login, "iss": "https://lms.invalid"}), 403,
             "unknown issuer")
    _refused(browser.post(lti.base + "/lti/login", data={**login, "client_id": "nobody"}), 403, "client_id")
    _refused(browser.post(lti.base + "/lti/login", data={**login, "lti_deployment_id": "nope"}), 403,
             "deployment_id")
    _refused(browser.post(lti.base + "/lti/login", data={**login, "target_link_uri": "https://evil.example/"}), 400,
             "target_link_uri")
    _refused(browser.post(lti.base + "/lti/login", data={k: v for k, v in login.items() if k != "login_hint"}), 400,
             "login_hint")


def test_inputs_are_bounded(lti, browser):
    _refused(browser.post(lti.base + "/lti/launch", data={"id_token": "e" * (65 * 1024), "state": "s"}), 413,
             "id_token")
    _refused(browser.post(lti.base + "/lti/launch", data={"state": "s" * (MAX_BODY + 1)}), 413, "KiB")
    _refused(browser.post(lti.base + "/lti/launch", data={f"f{i}": "x" for i in range(40)}), 413, "parameters")
    _refused(browser.post(lti.base + "/lti/launch", json={"id_token": "x"}), 415, "form post")
    _refused(browser.post(lti.base + "/lti/launch", data={"id_token": "not-a-jwt", "state": "s"}), 400, "not a JWT")
    _refused(browser.post(lti.base + "/lti/launch", data={"state": "s"}), 400, "id_token")
    _refused(browser.post(lti.base + "/lti/launch", content=b"id_token=a&id_token=b",
                          headers={"Content-Type": "application/x-www-form-urlencoded"}), 400, "twice")


def test_the_provisioner_may_refuse_a_launch(lti, browser):
    _refused(browser_launch(browser, lti.platform, resource_link(custom={"refuse": "yes"})), 403, "closed")


def test_the_platform_keys_are_cached_and_fetched_again_when_rotated(lti, browser):
    assert browser_launch(browser, lti.platform, resource_link()).status_code == 303
    fetched = lti.platform.jwks_requests
    assert browser_launch(browser, lti.platform, resource_link()).status_code == 303
    assert lti.platform.jwks_requests == fetched  # from the cache
    lti.platform.rotate_key()
    # An earlier test's unknown kid may have used this minute's early fetch.
    lti.tool.storage.delete_value("jwks-refetch-" + digest(lti.platform.issuer + "/jwks"))
    assert browser_launch(browser, lti.platform, resource_link()).status_code == 303
    assert lti.platform.jwks_requests == fetched + 1
    # Once a minute at most: another unknown kid is refused without fetching.
    _refused(browser_launch(browser, lti.platform, tampered("unknown_kid")), 401, "no key")
    assert lti.platform.jwks_requests == fetched + 1


def test_the_jwks_serves_the_tool_key(lti, browser):
    keys = browser.get(lti.base + "/lti/jwks").json()["keys"]
    assert len(keys) == 1 and keys[0]["alg"] == "RS256" and keys[0]["use"] == "sig" and keys[0]["kid"]
    public = (lti.folder / "tool-public.pem").read_text()
    assert RSAAlgorithm.from_jwk(json.dumps(keys[0])).public_numbers() == \
        RSAAlgorithm(RSAAlgorithm.SHA256).prepare_key(public).public_numbers()
    assert "private" not in json.dumps(keys) and "d" not in keys[0]


# -- deep linking ----------------------------------------------------------------------------------


def _deep_link_launch(lti, browser) -> str:
    r = browser_launch(browser, lti.platform, deep_linking())
    assert r.status_code == 303, r.text
    launch = lti.provisioner.launches[-1]
    assert launch.message_type == "LtiDeepLinkingRequest" and launch.roles == {"instructor"}
    assert launch.deep_linking.return_url == lti.platform.issuer + "/deep_links"
    assert launch.resource_link is None
    assert r.headers["location"] == f"/judge/pick?launch={launch.launch_id}"
    return launch.launch_id


def test_deep_linking_returns_a_signed_response_the_platform_accepts(lti, browser):
    launch_id = _deep_link_launch(lti, browser)
    r = browser.post(lti.base + "/lti/deep-link", data={"launch_id": launch_id, "item": PROBLEM})
    assert r.status_code == 200, r.text
    assert f"form-action {lti.platform.issuer}" in r.headers["content-security-policy"]
    form = parse_form(r.text)
    assert form.action == lti.platform.issuer + "/deep_links"
    # Signed with the tool's key, with Deep Linking 2.0 §4.2's claims.
    key = RSAAlgorithm.from_jwk(json.dumps(browser.get(lti.base + "/lti/jwks").json()["keys"][0]))
    claims = lti.platform.verify_deep_link_response(form.fields["JWT"], key)
    assert claims["iss"] == lti.platform.client_id and claims["aud"] == [lti.platform.issuer]
    assert claims["exp"] > claims["iat"] and claims["nonce"]
    assert claims[DL + "data"] == "opaque-platform-data"
    (item,) = claims[DL + "content_items"]
    assert item == {"type": "ltiResourceLink", "title": "Per-example gradient clipping", "text": "vmap and grad",
                    "url": lti.base + "/lti/launch", "custom": {ITEM_PARAM: PROBLEM},
                    "lineItem": {"scoreMaximum": 10.0, "label": "Per-example gradient clipping",
                                 "resourceId": PROBLEM, "tag": "jaxjudge"}}
    # The browser's auto-post reaches the platform, which verifies it again from the tool's JWKS.
    accepted = browser.post(form.action, data=form.fields)
    assert accepted.status_code == 200, accepted.text
    assert lti.platform.deep_link_responses[-1][DL + "content_items"] == [item]
    assert lti.provisioner.placements[-1] == [PROBLEM]  # the service heard of the placement before the answer
    _refused(browser.post(lti.base + "/lti/deep-link", data={"launch_id": launch_id, "item": PROBLEM}), 400,
             "unknown or expired")


def test_deep_linking_choices_are_checked(lti, browser):
    launch_id = _deep_link_launch(lti, browser)
    _refused(browser.post(lti.base + "/lti/deep-link", data={"launch_id": launch_id, "item": "not_offered"}), 400,
             "not_offered")
    _refused(browser.post(lti.base + "/lti/deep-link", data={"launch_id": launch_id,
                                                             "item": f"{PROBLEM} ungraded_intro"}), 400, "one item")
    _refused(browser.post(lti.base + "/lti/deep-link", data={"item": PROBLEM}), 400, "launch_id")
    _refused(browser.post(lti.base + "/lti/deep-link", data={"launch_id": "lti1p3-state-x", "item": PROBLEM}), 400,
             "unknown or expired")
    # An ungraded item has no lineItem; a request without data gets none back.
    r = browser.post(lti.base + "/lti/deep-link", data={"launch_id": launch_id, "item": "ungraded_intro"})
    assert r.status_code == 200
    claims = jwt.decode(parse_form(r.text).fields["JWT"], options={"verify_signature": False})
    assert "lineItem" not in claims[DL + "content_items"][0]
    browser_launch(browser, lti.platform, deep_linking(dl_data=None))
    r = browser.post(lti.base + "/lti/deep-link", data={"launch_id": lti.provisioner.launches[-1].launch_id,
                                                        "item": PROBLEM})
    assert DL + "data" not in jwt.decode(parse_form(r.text).fields["JWT"], options={"verify_signature": False})


# -- Assignment and Grade Services -----------------------------------------------------------------


def _launch(lti, browser, **kw) -> Launch:
    assert browser_launch(browser, lti.platform, resource_link(**kw)).status_code == 303
    return lti.provisioner.launches[-1]


def test_a_score_reaches_the_line_item_with_a_client_credentials_token(lti, browser):
    launch = _launch(lti, browser)
    client = AgsClient(lti.tool.config)
    tokens = len(lti.platform.token_requests)
    result = client.send_score(launch.issuer, launch.client_id, launch.ags,
                               Score(launch.subject, 7.5, 10.0, comment="3 of 4 checks"))
    assert result.ok and result.status == 204, result
    received = lti.platform.scores[-1]
    assert received["lineitem"] == 1 and received["query"] == {"type_id": "7"}  # /scores went before the query
    score = received["score"]
    assert score["userId"] == "user-1" and score["scoreGiven"] == 7.5 and score["scoreMaximum"] == 10.0
    assert score["activityProgress"] == "Completed" and score["gradingProgress"] == "FullyGraded"
    assert score["timestamp"].endswith("+00:00") and score["comment"] == "3 of 4 checks"
    assert SCOPE + "score" in received["scopes"]
    request = lti.platform.token_requests[-1]
    assert len(lti.platform.token_requests) == tokens + 1
    assert request["form"]["grant_type"] == "client_credentials"
    assertion = request["assertion"]
    assert assertion["iss"] == assertion["sub"] == lti.platform.client_id
    assert assertion["aud"] == lti.platform.token_url and assertion["exp"] > assertion["iat"]
    # The token is kept until it nears its expiry.
    assert client.send_score(launch.issuer, launch.client_id, launch.ags, Score(launch.subject, 9, 10)).ok
    assert len(lti.platform.token_requests) == tokens + 1
    client.close()


def test_a_line_item_is_created_then_found_when_only_the_container_is_given(lti, browser):
    launch = _launch(lti, browser, lineitem=False)
    assert launch.ags.lineitem is None
    spec = LineItemSpec("Gradient clipping", 10.0, resource_link_id=launch.resource_link.id, resource_id=PROBLEM,
                        tag="jaxjudge")
    count = len(lti.platform.lineitems)
    result = AgsClient(lti.tool.config).send_score(launch.issuer, launch.client_id, launch.ags,
                                                   Score(launch.subject, 4, 10), spec)
    assert result.ok, result
    assert len(lti.platform.lineitems) == count + 1
    created = lti.platform.lineitems[count + 1]
    assert (created["resourceId"], created["tag"], created["label"]) == (PROBLEM, "jaxjudge", "Gradient clipping")
    assert result.lineitem == created["id"] and lti.platform.scores[-1]["lineitem"] == count + 1
    again = AgsClient(lti.tool.config).send_score(launch.issuer, launch.client_id, launch.ags,
                                                  Score(launch.subject, 5, 10), spec)
    assert again.ok and again.lineitem == created["id"] and len(lti.platform.lineitems) == count + 1


def test_score_failures_are_returned_not_raised(lti, browser):
    launch = _launch(lti, browser)
    client = AgsClient(lti.tool.config, timeout=3)
    score = Score(launch.subject, 1, 10)
    gone = AgsEndpoint(scope=launch.ags.scope, lineitems=None, lineitem=lti.platform.issuer + "/lineitems/999")
    result = client.send_score(launch.issuer, launch.client_id, gone, score)
    assert not result.ok and result.status == 404 and "refused" in result.message
    down = AgsEndpoint(scope=launch.ags.scope, lineitems=None, lineitem="http://127.0.0.1:9/lineitems/1")
    result = client.send_score(launch.issuer, launch.client_id, down, score)
    assert not result.ok and result.status is None and "could not be reached" in result.message
    no_scope = AgsEndpoint(scope=(SCOPE + "lineitem.readonly",), lineitems=None, lineitem=launch.ags.lineitem)
    assert not client.send_score(launch.issuer, launch.client_id, no_scope, score).ok
    assert not client.send_score("https://lms.invalid", launch.client_id, launch.ags, score).ok
    no_item = AgsEndpoint(scope=launch.ags.scope, lineitems=None, lineitem=None)
    assert "no line item" in client.send_score(launch.issuer, launch.client_id, no_item, score).message
    bad = client.send_score(launch.issuer, launch.client_id, launch.ags, Score(launch.subject, -1, 10))
    assert not bad.ok and bad.status == 400 and "scoreGiven" in bad.message  # the platform's own words
    client.close()


# -- registration, configuration, storage ----------------------------------------------------------


def test_tool_configuration_renders_the_urls():
    c = tool_configuration("https://judge.example.org/", "JAX Judge")
    assert c["login_url"] == "https://judge.example.org/lti/login"
    assert c["launch_url"] == c["deep_linking_url"] == "https://judge.example.org/lti/launch"
    assert c["jwks_url"] == "https://judge.example.org/lti/jwks" and c["redirect_uris"] == [c["launch_url"]]
    canvas = c["canvas"]
    assert canvas["oidc_initiation_url"] == c["login_url"] and canvas["target_link_uri"] == c["launch_url"]
    assert canvas["public_jwk_url"] == c["jwks_url"]
    assert SCOPE + "score" in canvas["scopes"] and SCOPE + "lineitem" in canvas["scopes"]
    placements = canvas["extensions"][0]["settings"]["placements"]
    assert {p["message_type"] for p in placements} == {"LtiDeepLinkingRequest"}
    assert canvas["extensions"][0]["domain"] == "judge.example.org"
    moodle = c["moodle"]
    assert moodle["LTI version"] == "LTI 1.3" and moodle["Public key type"] == "Keyset URL"
    assert moodle["Initiate login URL"] == c["login_url"] and moodle["Redirection URI(s)"] == c["launch_url"]
    text = format_text(c)
    for url in (c["login_url"], c["launch_url"], c["jwks_url"]):
        assert url in text
    json.dumps(c)  # all of it is JSON
    with pytest.raises(ValueError):
        tool_configuration("judge.example.org", "x")


def test_configuration_errors_are_one_line(tmp_path):
    def error(text: str | None) -> str:
        path = tmp_path / "lti.json"
        if text is not None:
            path.write_text(text)
        with pytest.raises(LtiConfigError) as e:
            load_tool_config(path)
        assert "\n" not in str(e.value) and str(path) in str(e.value)
        return str(e.value)

    assert "file not found" in error(None)
    assert "not valid JSON" in error("{nope")
    assert "JSON object" in error("[]")
    entry = {"client_id": "c", "auth_login_url": "https://l/a", "auth_token_url": "https://l/t",
             "key_set_url": "https://l/k", "deployment_ids": ["d"], "private_key_file": "missing.pem"}
    assert "missing.pem not found" in error(json.dumps({"https://l": entry}))
    assert "lacks auth_token_url" in error(json.dumps({"https://l": {k: v for k, v in entry.items()
                                                                     if k != "auth_token_url"}}))
    (tmp_path / "junk.pem").write_text("not a key")
    assert "not an unencrypted PEM private key" in error(json.dumps({"https://l": {**entry,
                                                                                   "private_key_file": "junk.pem"}}))
    assert "list of strings" in error(json.dumps({"https://l": {**entry, "deployment_ids": "d"}}))


def test_key_pair_files_are_private_and_kept(tmp_path):
    private, public = tmp_path / "k.pem", tmp_path / "k.pub"
    generate_key_pair(private, public)
    for p in (private, public):
        assert stat.S_IMODE(os.stat(p).st_mode) == 0o600
    assert b"PRIVATE KEY" in private.read_bytes() and b"PUBLIC KEY" in public.read_bytes()
    with pytest.raises(LtiConfigError, match="exists already"):
        generate_key_pair(private, public)
    old = private.read_bytes()
    generate_key_pair(private, public, overwrite=True)
    assert private.read_bytes() != old and not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    # A configuration without public_key_file derives the public key for the JWKS.
    (tmp_path / "lti.json").write_text(json.dumps({"https://l": {
        "client_id": "c", "auth_login_url": "https://l/a", "auth_token_url": "https://l/t", "key_set_url": "https://l/k",
        "deployment_ids": ["d"], "private_key_file": "k.pem"}}))
    assert load_tool_config(tmp_path / "lti.json").jwks()["keys"][0]["kty"] == "RSA"


def test_the_store_is_bounded_and_expiring():
    now = [1000.0]
    store = MemoryLaunchDataStorage(max_entries=3, default_ttl=10, clock=lambda: now[0])
    for i in range(5):
        store.set_value(f"k{i}", i)
    assert len(store) == 3 and store.get_value("k0") is None and store.get_value("k4") == 4
    assert store.pop_value("k4") == 4 and store.pop_value("k4") is None
    store.set_value("short", "v", exp=1)
    now[0] += 2
    assert not store.check_value("short") and store.get_value("k3") == 3
    now[0] += 10
    assert store.get_value("k3") is None
