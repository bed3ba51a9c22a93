"""Ordinary bad input against a live `grader serve` on SQLite and on PostgreSQL, each a
422 naming the field and the rule, never a 500: a roster CSV with an over-long field,
date-times whose UTC conversion overflows or that fall outside the range the service
takes. And honest input that used to fail is taken: a roster with CR-only (old Mac
Excel) or mixed line endings, or with a byte-order mark; times at the very edges of the
range, on every route and page that reads them."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import httpx
import pytest
from service_support import P1, Server, logged_in, make_user, sqlite_url

from grader.service.core.csv_io import MAX_FIELD

PASSWORD = "correct horse"
COURSE = "edges"
NOW = datetime.now(timezone.utc)


def _at(hours: float) -> str:
    return (NOW + timedelta(hours=hours)).isoformat()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def site(request, tmp_path_factory):
    root = tmp_path_factory.mktemp(f"bad-input-{request.param}")
    url = sqlite_url(root) if request.param == "sqlite" else request.getfixturevalue("postgres").new_database()
    tokens = {"t": make_user(url, "t@example.org", instructor=True, password=PASSWORD, course=None),
              "ann": make_user(url, "ann@example.org", password=PASSWORD, course=None)}
    server = Server(url, "--login-limit", "100000/min", "--submit-limit", "1000/min", "--max-pending", "100",
                    workers=0).start()
    with server.client(tokens["t"]) as t:
        assert t.post("/courses", json={"slug": COURSE, "title": "Edges"}).status_code == 201
        code = t.post(f"/courses/{COURSE}/invitations", json={}).json()["code"]
        r = t.post(f"/courses/{COURSE}/assignments", json={"slug": "open", "title": "Open", "opens_at": _at(-1),
                                                           "due_at": _at(24), "problems": [{"problem": P1}]})
        assert r.status_code == 201, r.text
    with server.client(tokens["ann"]) as ann:
        assert ann.post("/join", json={"code": code}).status_code == 200
    server.tokens = tokens
    yield server
    server.stop()


def api(site, who: str = "t") -> httpx.Client:
    return site.client(site.tokens[who])


def _members(site) -> set[str]:
    with api(site) as t:
        return {m["email"] for m in t.get(f"/courses/{COURSE}/members").json()}


# ---------------------------------------------------------------- the roster

@pytest.mark.parametrize("length", [200_000, MAX_FIELD + 1])
def test_a_roster_with_an_over_long_field_is_a_422_naming_its_line(site, length):
    text = "email,note\nlong1@example.org,\nlong2@example.org," + "x" * length + "\n"
    with api(site) as t:
        r = t.post(f"/courses/{COURSE}/roster", json={"csv": text})
    assert r.status_code == 422, r.text
    assert r.json()["detail"] == f"csv: line 3: a field has more than {MAX_FIELD} characters"
    assert "long1@example.org" not in _members(site)  # the whole file is refused


def test_a_roster_field_at_the_limit_is_taken(site):
    with api(site) as t:
        r = t.post(f"/courses/{COURSE}/roster",
                   json={"csv": "email,note\nfull@example.org," + "x" * MAX_FIELD + "\n"})
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("newline", ["\r", "\r\n", "\n", "mixed"])
def test_a_roster_is_read_whatever_its_line_endings(site, newline):
    name = {"\r": "cr", "\r\n": "crlf", "\n": "lf", "mixed": "mixed"}[newline]
    lines = ["email,role", f"{name}1@example.org,learner", f'"{name}2@example.org",instructor', f"{name}3@example.org"]
    text = ("\r".join(lines[:2]) + "\r\n" + "\n".join(lines[2:]) if newline == "mixed" else newline.join(lines)) \
        + ("\r" if newline == "mixed" else newline)
    with api(site) as t:
        r = t.post(f"/courses/{COURSE}/roster", json={"csv": text})
    assert r.status_code == 200, r.text
    assert [(x["email"], x["created"]) for x in r.json()] == [(f"{name}{i}@example.org", True) for i in (1, 2, 3)]
    with api(site) as t:
        roles = {m["email"]: m["role"] for m in t.get(f"/courses/{COURSE}/members").json()}
    assert roles[f"{name}2@example.org"] == "instructor" and roles[f"{name}3@example.org"] == "learner"


def test_a_roster_with_a_byte_order_mark_is_read(site):
    with api(site) as t:
        r = t.post(f"/courses/{COURSE}/roster", json={"csv": "\ufeffEmail\r\nbom@example.org\r\n"})
    assert r.status_code == 200 and r.json()[0]["email"] == "bom@example.org", r.text


def test_a_quoted_roster_field_keeps_its_line_breaks_and_lines_count_from_the_file(site):
    text = 'email,note\r"ok@example.org","two\rlines"\r"not an email",\r'
    with api(site) as t:
        r = t.post(f"/courses/{COURSE}/roster", json={"csv": text})
    assert r.status_code == 400 and r.json()["detail"].startswith("line 4:"), r.text


# ---------------------------------------------------------------- date-times

def _assignment(**times) -> dict:
    return {"slug": "xx", "title": "X", "opens_at": _at(-1), "due_at": _at(1), "problems": [{"problem": P1}], **times}


OUT_OF_RANGE = ["0001-01-01T00:00:00+14:00",  # the issue's: before year 1 in UTC
                "9999-12-31T23:59:59-14:00",  # after year 9999 in UTC
                "1969-12-31T23:59:59Z", "9000-01-01T00:00:00Z", "9000-01-01T13:59:59+13:59"]


@pytest.mark.parametrize("value", OUT_OF_RANGE)
@pytest.mark.parametrize("field", ["opens_at", "due_at", "late_until"])
def test_an_assignment_time_out_of_range_is_a_422_naming_the_field(site, field, value):
    with api(site) as t:
        r = t.post(f"/courses/{COURSE}/assignments", json=_assignment(**{field: value}))
        assert r.status_code == 422 and r.json()["detail"].startswith(f"{field}: "), r.text
        assert "from 1970-01-01T00:00:00Z to before 9000-01-01T00:00:00Z" in r.json()["detail"]
        body = _assignment(**{field: value})
        del body["slug"]
        r = t.put(f"/courses/{COURSE}/assignments/open", json=body)
        assert r.status_code == 422 and r.json()["detail"].startswith(f"{field}: "), r.text


@pytest.mark.parametrize("value", [*OUT_OF_RANGE, "2027-01-01T09:00:00"])
@pytest.mark.parametrize("field", ["due_at", "late_until"])
def test_an_extension_time_out_of_range_or_without_a_zone_is_a_422_naming_the_field(site, field, value):
    body = {"email": "ann@example.org", "due_at": _at(2), field: value}
    with api(site) as t:
        r = t.post(f"/courses/{COURSE}/assignments/open/extensions", json=body)
    assert r.status_code == 422 and r.json()["detail"].startswith(f"{field}: "), r.text


def test_times_at_the_edges_of_the_range_are_taken_and_every_reader_shows_them(site):
    """The first and the last instant taken, in the zones furthest from UTC; then every
    route and page that reads an assignment's times or an extension's."""
    first, last = "1970-01-01T14:00:00+14:00", "9000-01-01T13:59:59.999999+14:00"
    body = {"slug": "edge", "title": "Edge", "opens_at": first, "due_at": "8999-12-31T22:00:00-01:00",
            "late_until": last, "late_penalty": 0.5, "problems": [{"problem": P1}]}
    with api(site) as t:
        r = t.post(f"/courses/{COURSE}/assignments", json=body)
        assert r.status_code == 201, r.text
        window = r.json()["window"]
        assert window["opens_at"].startswith("1970-01-01T00:00:00") and window["closes_at"].startswith("8999-12-31")
        r = t.post(f"/courses/{COURSE}/assignments/edge/extensions",
                   json={"email": "ann@example.org", "due_at": "8999-12-31T23:59:59Z", "late_until": last})
        assert r.status_code == 200, r.text
        for path, params in [("/assignments/edge", {}), ("/assignments", {}), ("/assignments/edge/extensions", {}),
                             ("/assignments/edge/scores", {}),
                             *[("/assignments/edge/scores", {"format": "csv", "layout": layout})
                               for layout in ("plain", "canvas", "moodle")]]:
            r = t.get(f"/courses/{COURSE}{path}", params=params)
            assert r.status_code == 200, (path, params, r.text)
    with api(site, "ann") as ann:
        assert ann.get(f"/courses/{COURSE}/assignments/edge").json()["window"]["extended"]
        r = ann.post("/submissions", json={"problem": P1, "source": "# edge\n", "kind": "submit",
                                           "assignment": f"{COURSE}/edge"})
        assert r.status_code == 202, r.text
    for who in ("t@example.org", "ann@example.org"):
        with logged_in(site.base, who, PASSWORD) as page:
            for path in ("/courses", f"/courses/{COURSE}", f"/courses/{COURSE}/assignments/edge"):
                r = page.get(path)
                assert r.status_code == 200 and "8999-12-31" in r.text, (who, path, r.text[-2000:])
