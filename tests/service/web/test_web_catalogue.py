"""The catalogue as a learner browses it, over HTTP against a live `grader serve` (the
checkout's problems, a SQLite file): the problem list's search, filters and sorts from
a plain GET form, what bad values give, similar problems and previous/next on a problem
page, and problems named by their titles on the submissions pages and the gradebook."""
from __future__ import annotations

import re
import time

import pytest
from service_support import P1, Server, httpx, make_user, sqlite_url

PASSWORD = "correct horse"
P1_TITLE = "Per-Example Gradient Clipping"
RANK = {"easy": 0, "medium": 1, "hard": 2}


def login(server: Server, email: str) -> tuple[httpx.Client, str]:
    c = httpx.Client(base_url=server.base, timeout=60)
    r = c.post("/api/v1/auth/login", json={"email": email, "password": PASSWORD})
    assert r.status_code == 200, r.text
    return c, r.json()["csrf_token"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("catalogue")
    url = sqlite_url(root)
    for name in ("ann", "bob", "teacher"):
        make_user(url, f"{name}@example.org", instructor=name == "teacher", password=PASSWORD)
    server = Server(url, "--no-feedback", "--run-limit", "100/min", "--submit-limit", "100/h", workers=1).start()
    clients = {n: login(server, f"{n}@example.org") for n in ("ann", "bob", "teacher")}
    ann, csrf = clients["ann"]
    # A Submit that fails its checks: graded at once, so ann has tried P1 and the gradebook has a cell.
    r = ann.post("/api/v1/submissions", json={"problem": P1, "source": "x = 1\n", "kind": "submit"},
                 headers={"X-CSRF-Token": csrf})
    assert r.status_code == 202, r.text
    sid = r.json()["id"]
    deadline = time.time() + 300
    while ann.get(f"/api/v1/submissions/{sid}").json()["status"] != "done":
        assert time.time() < deadline, "the Submit was not graded"
        time.sleep(0.1)
    yield server, {n: c for n, (c, _) in clients.items()}
    for c, _ in clients.values():
        c.close()
    server.stop()


def listed(c: httpx.Client, **params) -> list[dict]:
    """The problem list's rows, in page order: id, title, difficulty, tags, status."""
    r = c.get("/problems", params=params)
    assert r.status_code == 200, r.text
    rows = []
    for pid, body in re.findall(r'<tr data-problem="([^"]+)">(.*?)</tr>', r.text, re.S):
        rows.append({"id": pid, "title": re.search(r'<a href="/problems/[^"]+">([^<]*)</a>', body).group(1),
                     "difficulty": re.search(r'class="difficulty d-(\w+)"', body).group(1),
                     "tags": re.findall(r'<span class="tag">([^<]*)</span>', body),
                     "status": re.search(r'class="status s-(\w+)"', body).group(1)})
    return rows


def match_line(c: httpx.Client, **params) -> str:
    page = c.get("/problems", params=params).text
    return re.search(r'<p id="match-count"[^>]*>(.*?)</p>', page, re.S).group(1)


@pytest.fixture(scope="module")
def catalogue(site):
    return listed(site[1]["ann"])


# ------------------------------------------------------------------ the problem list

def test_search_finds_a_word_of_a_title_in_any_case(site, catalogue):
    ann = site[1]["ann"]
    rows = listed(ann, q="CLIPPING")
    assert {P1, "global_norm_clipping"} <= {r["id"] for r in rows}
    assert all("clipping" in (r["title"] + r["id"] + " ".join(r["tags"])).lower() for r in rows)
    assert match_line(ann, q="CLIPPING") == f"{len(rows)} of {len(catalogue)} problems match."
    page = ann.get("/problems", params={"q": "CLIPPING"}).text
    assert 'name="q" type="search" value="CLIPPING"' in page  # the search stays in its field


def test_search_words_must_all_match(site):
    assert [r["id"] for r in listed(site[1]["ann"], q="gradient per-example")] == [P1]


def test_filter_by_tag_keeps_only_problems_with_that_tag(site, catalogue):
    ann = site[1]["ann"]
    rows = listed(ann, tag="vmap")
    assert rows and all("vmap" in r["tags"] for r in rows)
    assert {r["id"] for r in rows} == {r["id"] for r in catalogue if "vmap" in r["tags"]}
    assert re.search(r'<option value="vmap" selected>vmap \(\d+\)</option>', ann.get("/problems?tag=vmap").text)


def test_filter_by_difficulty_keeps_only_that_difficulty(site, catalogue):
    ann = site[1]["ann"]
    rows = listed(ann, difficulty="easy")
    assert rows and {r["id"] for r in rows} == {r["id"] for r in catalogue if r["difficulty"] == "easy"}
    assert '<option value="easy" selected>' in ann.get("/problems?difficulty=easy").text


def test_filter_by_status_follows_the_viewers_own_submissions(site, catalogue):
    ann, bob = site[1]["ann"], site[1]["bob"]
    assert [r["id"] for r in listed(ann, status="tried")] == [P1]
    assert P1 not in {r["id"] for r in listed(ann, status="new")}
    assert len(listed(ann, status="new")) == len(catalogue) - 1
    assert listed(bob, status="tried") == []  # bob sent nothing
    assert '<option value="tried" selected>' in ann.get("/problems?status=tried").text


def test_filters_combine(site):
    rows = listed(site[1]["ann"], q="clipping", difficulty="medium", tag="vmap")
    assert [r["id"] for r in rows] == [P1]


def test_default_order_is_the_catalogue_order(site, catalogue):
    assert [r["id"] for r in catalogue] == sorted(r["id"] for r in catalogue)


def test_sort_by_title(site, catalogue):
    titles = [r["title"] for r in listed(site[1]["ann"], sort="title")]
    assert titles == sorted(titles, key=str.casefold) and len(titles) == len(catalogue)


def test_sort_by_difficulty_goes_easy_medium_hard_and_keeps_catalogue_order_within_one(site, catalogue):
    rows = listed(site[1]["ann"], sort="difficulty")
    assert [RANK[r["difficulty"]] for r in rows] == sorted(RANK[r["difficulty"]] for r in rows)
    order = [r["id"] for r in catalogue]
    for level in RANK:
        same = [r["id"] for r in rows if r["difficulty"] == level]
        assert same == sorted(same, key=order.index)
    assert '<option value="difficulty" selected>' in site[1]["ann"].get("/problems?sort=difficulty").text


def test_sort_by_status_puts_solved_then_tried_then_new(site):
    rows = listed(site[1]["ann"], sort="status")
    assert rows[0]["id"] == P1 and {r["status"] for r in rows[1:]} == {"new"}


def test_no_match_says_so_and_links_to_all_problems(site, catalogue):
    ann = site[1]["ann"]
    page = ann.get("/problems", params={"q": "no such problem anywhere"}).text
    assert "<table" not in page and match_line(ann, q="no such problem anywhere") == \
        f"0 of {len(catalogue)} problems match."
    assert re.search(r'<p id="no-match"[^>]*>No problem matches these filters\. <a href="/problems">Clear the '
                     r'filters</a>', page)


def test_a_tag_no_problem_has_matches_nothing_and_stays_chosen(site):
    page = site[1]["ann"].get("/problems", params={"tag": "no-such-tag"}).text
    assert 'id="no-match"' in page and '<option value="no-such-tag" selected>no-such-tag (0)</option>' in page


@pytest.mark.parametrize("params, message", [
    ({"q": "x" * 101}, "The search may be at most 100 characters long."),
    ({"tag": "t" * 65}, "A tag is at most 64 characters long."),
    ({"difficulty": "extreme"}, "The difficulty is one of easy, medium, hard."),
    ({"status": "<b>won</b>"}, "The status is one of solved, tried, new."),
    ({"sort": "id; DROP TABLE users"}, "The list sorts by title, difficulty, status."),
], ids=["long-query", "long-tag", "difficulty", "status", "sort"])
def test_a_bad_value_gives_a_400_page_that_says_what_is_wrong(site, params, message):
    r = site[1]["ann"].get("/problems", params=params)
    assert r.status_code == 400 and r.headers["content-type"].startswith("text/html")
    assert f"<p>{message}</p>" in r.text and '<a href="/problems">Back to the problems</a>' in r.text


def test_markup_in_the_search_is_shown_escaped_and_matches_nothing(site):
    q = '"><script>alert(1)</script>\u202e' + "é" * 60
    r = site[1]["ann"].get("/problems", params={"q": q})
    assert r.status_code == 200 and 'id="no-match"' in r.text
    assert "<script>alert" not in r.text and 'value="&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;' in r.text


def test_the_search_form_is_a_plain_get_form_with_labelled_fields(site):
    page = site[1]["ann"].get("/problems").text
    form = re.search(r'<form id="problem-filters"[^>]*>(.*?)</form>', page, re.S)
    assert form and 'method="get" action="/problems"' in form.group(0)
    names = re.findall(r'<(?:input|select) id="([^"]+)" name="([^"]+)"', form.group(1))
    assert [n for _, n in names] == ["q", "tag", "difficulty", "status", "sort"]
    assert all(f'<label for="{i}">' in form.group(1) for i, _ in names)
    assert '<option value="jax"' not in form.group(1)  # a tag every problem has filters nothing


# ------------------------------------------------------------------ the problem page

def related(c: httpx.Client, pid: str) -> str:
    page = c.get(f"/problems/{pid}").text
    section = re.search(r'<section id="related".*?</section>', page, re.S)
    assert section, pid
    return section.group(0)


def test_similar_problems_share_a_tag_beyond_the_generic_ones_and_leave_out_the_problem_itself(site, catalogue):
    ann = site[1]["ann"]
    tags = {r["id"]: set(r["tags"]) for r in catalogue}
    generic = set.intersection(*tags.values())
    assert "jax" in generic
    section = related(ann, P1)
    shown = re.findall(r'<li data-problem="([^"]+)">', section)
    assert shown and P1 not in shown and len(shown) <= 4
    for pid in shown:
        assert (tags[pid] & tags[P1]) - generic, pid
    assert shown[0] == "dp_sgd_mlp_step"  # it shares vmap, grad, dp-sgd and privacy
    shares = re.findall(r'<span class="shared[^"]*">(.*?)</span>\s*</li>', section, re.S)
    assert shares and not any('<span class="tag">jax</span>' in s for s in shares)


def test_similar_problems_show_title_difficulty_and_the_viewers_status(site, catalogue):
    rows = {r["id"]: r for r in catalogue}
    section = related(site[1]["ann"], "dp_sgd_mlp_step")
    item = re.search(rf'<li data-problem="{P1}">(.*?)</li>', section, re.S).group(1)
    assert f'<a href="/problems/{P1}">{P1_TITLE}</a>' in item
    assert f'class="difficulty d-{rows[P1]["difficulty"]}"' in item and "● Tried" in item


def test_previous_and_next_follow_the_catalogue_order_and_stop_at_its_ends(site, catalogue):
    ann = site[1]["ann"]
    ids = [r["id"] for r in catalogue]
    first, last = related(ann, ids[0]), related(ann, ids[-1])
    assert 'id="prev-problem"' not in first and f'id="next-problem" rel="next" href="/problems/{ids[1]}"' in first
    assert 'id="next-problem"' not in last and f'id="prev-problem" rel="prev" href="/problems/{ids[-2]}"' in last
    i = ids.index(P1)
    middle = related(ann, P1)
    assert f'rel="prev" href="/problems/{ids[i - 1]}"' in middle
    assert f'rel="next" href="/problems/{ids[i + 1]}"' in middle
    assert f"Next: {catalogue[i + 1]['title']}" in middle


# ------------------------------------------------------------------ titles, not ids

def test_my_submissions_name_the_problem_by_title_and_link_by_id(site):
    page = site[1]["ann"].get("/submissions").text
    assert f'<td><a href="/submissions?problem={P1}">{P1_TITLE}</a></td>' in page
    assert f">{P1}<" not in page


def test_the_history_fragment_names_the_problem_by_title(site):
    fragment = site[1]["ann"].get(f"/problems/{P1}/history").text
    assert f'<a href="/submissions?problem={P1}">All your submissions on {P1_TITLE}</a>' in fragment


def test_gradebook_columns_are_headed_by_titles_and_keep_ids_in_links_and_the_csv(site):
    teacher = site[1]["teacher"]
    page = teacher.get("/gradebook").text
    assert f'<th scope="col" data-problem="{P1}"><a href="/submissions?problem={P1}">{P1_TITLE}</a></th>' in page
    assert f">{P1}<" not in page and f'<td data-problem="{P1}">' in page
    header = teacher.get("/gradebook.csv").text.splitlines()[0].split(",")
    assert header[0] == "learner" and P1 in header and P1_TITLE not in header


def test_the_instructors_submissions_list_names_problems_by_title(site):
    page = site[1]["teacher"].get("/submissions", params={"problem": P1}).text
    assert f'<a href="/submissions?problem={P1}">{P1_TITLE}</a></td>' in page
    assert f'value="{P1}"' in page  # the filter keeps the id
