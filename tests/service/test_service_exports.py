"""Every CSV the service writes, against a live `grader serve` on SQLite and on
PostgreSQL: with formula-like text (starting with =, +, -, @, a tab or a carriage return)
in every field an instructor or a learner controls that a CSV shows (a course's and an
assignment's title, the learners' emails, chosen at sign-up or imported), no cell of any
CSV route or layout, headers included, starts as a spreadsheet formula, and each such
cell is its text behind a `'`."""
from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta, timezone

import httpx
import pytest
from service_support import P1, Server, csrf, logged_in, make_user, mark_graded, sqlite_url

PASSWORD = "correct horse"
FORMULA_START = "=+-@\t\r"
COURSE = "sheet"
# The attack of the issue, then one per character a formula starts with; tab and CR are
# stripped from titles, so what follows them must not slip through either.
TITLES = {"link": '=HYPERLINK("http://evil.example","click")', "plus": "+1+2", "minus": "-1+2",
          "at": "@SUM(1,2)", "tab": "\t=1+2", "cr": "\r=1+2"}
SIGNED_UP = ["=1+2@example.org", "+cmd@example.org", "-2+3@example.org"]
IMPORTED = ["=hyperlink@example.org", "\t-tab@example.org"]
LAYOUTS = ["plain", "canvas", "moodle"]
# Every API operation answering text/csv; the pages' CSV is /gradebook.csv.
CSV_OPERATIONS = {("get", "/api/v1/courses/{slug}/members"), ("get", "/api/v1/gradebook"),
                  ("get", "/api/v1/courses/{slug}/assignments/{assignment}/scores"),
                  ("get", "/api/v1/courses/{slug}/assignments/{assignment}/insight"),
                  ("get", "/api/v1/courses/{slug}/insight")}
MISTAKE = "-inf - (-inf) = NaN"  # a named mistake (a hint, as a problem's author wrote it) that starts like a formula



@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def site(request, tmp_path_factory):
    root = tmp_path_factory.mktemp(f"exports-{request.param}")
    url = sqlite_url(root) if request.param == "sqlite" else request.getfixturevalue("postgres").new_database()
    token = make_user(url, "t@example.org", instructor=True, password=PASSWORD, course=None)
    server = Server(url, "--login-limit", "100000/min", "--submit-limit", "1000/min", "--max-pending", "100",
                    workers=0).start()
    now = datetime.now(timezone.utc)
    with server.client(token) as t:
        r = t.post("/courses", json={"slug": COURSE, "title": '=HYPERLINK("http://evil.example","course")'})
        assert r.status_code == 201, r.text
        for slug, title in TITLES.items():
            r = t.post(f"/courses/{COURSE}/assignments",
                       json={"slug": slug, "title": title, "opens_at": (now - timedelta(hours=1)).isoformat(),
                             "due_at": (now + timedelta(days=1)).isoformat(), "problems": [{"problem": P1}]})
            assert r.status_code == 201, r.text
        code = t.post(f"/courses/{COURSE}/invitations", json={}).json()["code"]
        r = t.post(f"/courses/{COURSE}/roster", json={"csv": "email\n" + "\n".join(IMPORTED) + "\n"})
        assert r.status_code == 200, r.text
    for email in SIGNED_UP:
        with httpx.Client(base_url=server.base + "/api/v1", timeout=30) as b:
            r = b.post("/signup", json={"code": code, "email": email, "password": PASSWORD})
            assert r.status_code == 201, r.text
            r = b.post("/submissions", json={"problem": P1, "source": "# mine\n", "kind": "submit",
                                             "assignment": f"{COURSE}/link"}, headers=csrf(b))
            assert r.status_code == 202, r.text
            mark_graded(url, r.json()["id"], "WA", 1, mistake=MISTAKE)
    server.token = token
    yield server
    server.stop()


def _downloads(site) -> dict[str, str]:
    """Every CSV the service writes for this course, by a name of its route and layout."""
    out = {}
    with site.client(site.token) as t:
        def get(name: str, path: str, **params) -> None:
            r = t.get(path, params=params)
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv"), (name, r.text)
            out[name] = r.text

        get("roster", f"/courses/{COURSE}/members", format="csv")
        get("gradebook", "/gradebook", format="csv")
        get("gradebook of the course", "/gradebook", format="csv", course=COURSE)
        for slug in TITLES:
            for layout in LAYOUTS:
                get(f"scores {slug} {layout}", f"/courses/{COURSE}/assignments/{slug}/scores", format="csv",
                    layout=layout)
        get("insight", f"/courses/{COURSE}/assignments/link/insight", format="csv")
        get("course insight", f"/courses/{COURSE}/insight", format="csv")
    with logged_in(site.base, "t@example.org", PASSWORD) as page:
        for name, params in (("gradebook page", {}), ("gradebook page of the course", {"course": COURSE})):
            r = page.get("/gradebook.csv", params=params)
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv"), (name, r.text)
            out[name] = r.text
    return out


def _cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text, newline="")) for cell in row]


def test_the_walk_covers_every_csv_route_and_layout_of_the_api(site):
    doc = httpx.get(site.base + "/openapi.json", timeout=30).json()
    answering_csv = {(method, path) for path, item in doc["paths"].items() for method, op in item.items()
                     if "text/csv" in op.get("responses", {}).get("200", {}).get("content", {})}
    assert answering_csv == CSV_OPERATIONS
    scores = doc["paths"]["/api/v1/courses/{slug}/assignments/{assignment}/scores"]["get"]
    layout = next(p for p in scores["parameters"] if p["name"] == "layout")
    assert set(layout["schema"]["enum"]) == set(LAYOUTS)


def test_no_cell_of_any_csv_starts_a_formula_headers_included(site):
    downloads = _downloads(site)
    unsafe = {name: [c for c in _cells(text) if c and c[0] in FORMULA_START] for name, text in downloads.items()}
    assert not any(unsafe.values()), {name: cells for name, cells in unsafe.items() if cells}


def test_formula_like_text_is_kept_behind_a_quote(site):
    downloads = _downloads(site)
    learners = [e.strip() for e in SIGNED_UP + IMPORTED]
    for name in ("roster", *(f"scores link {layout}" for layout in LAYOUTS)):
        assert {"'" + e for e in learners} <= set(_cells(downloads[name])), name
    for name in ("gradebook", "gradebook of the course", "gradebook page", "gradebook page of the course"):
        assert {"'" + e for e in SIGNED_UP} <= set(_cells(downloads[name])), name  # those who submitted
    assert "'" + MISTAKE in _cells(downloads["insight"]) and "'" + MISTAKE in _cells(downloads["course insight"])
    for slug, title in TITLES.items():
        header, possible = list(csv.reader(io.StringIO(downloads[f"scores {slug} canvas"], newline="")))[:2]
        assert header[-1] == "'" + title.strip(), header
        assert possible == ["Points Possible", "", "", "", "", "1"]  # empty cells stay empty
        header = next(csv.reader(io.StringIO(downloads[f"scores {slug} moodle"], newline="")))
        assert header == ["Email address", "'" + title.strip()], header
