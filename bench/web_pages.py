"""Page loads of the web pages on a warm server, side by side with /healthz and two
API calls, one request at a time through HTTP (a keep-alive client, as a browser).

    python3 bench/web_pages.py [--rounds N] [--db URL] [--no-browser]

A fresh server (one worker, feedback off) gets a learner and an instructor; the
learner sends a wrong Run and a wrong Submit (graded before timing starts). Every URL
is loaded a few times untimed, then N rounds load each once, interleaved (the
machine's load drifts). Then, where Chromium and Playwright are installed, the same
pages are opened in headless Chromium (static files cached, as on a second visit)
and the browser's own navigation timing is read: the HTML's response end, and the
load event (scripts run, the editor built). Goal (the issue): page loads under 200 ms
on a warm server, read here as p95 < 200 ms for every page over HTTP."""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import header
import httpx
from service_harness import P1, ROOT, Serve, percentile

PASSWORD = "bench password"
GOAL_MS = 200.0


def make_account(url: str, email: str, role: str) -> None:
    from grader.service.domain.accounts import add_user
    from grader.service.server import open_database

    db = open_database(url)
    try:
        with db.write() as s:
            add_user(s, email, role, PASSWORD)
    finally:
        db.close()


def session(base: str, email: str) -> tuple[httpx.Client, str]:
    c = httpx.Client(base_url=base, timeout=60)
    r = c.post("/api/v1/auth/login", json={"email": email, "password": PASSWORD})
    r.raise_for_status()
    return c, r.json()["csrf_token"]


def graded(c: httpx.Client, csrf: str, source: str, kind: str) -> str:
    r = c.post("/api/v1/submissions", json={"problem": P1, "source": source, "kind": kind},
               headers={"X-CSRF-Token": csrf})
    r.raise_for_status()
    sid = r.json()["id"]
    deadline = time.time() + 600
    while time.time() < deadline:
        if c.get(f"/api/v1/submissions/{sid}").json()["status"] == "done":
            return sid
        time.sleep(0.1)
    raise RuntimeError(f"{sid} not graded in time")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("--db", default=None, help="database URL (default: a new SQLite file)")
    ap.add_argument("--no-browser", action="store_true", help="skip the timings in headless Chromium")
    header.add_save_option(ap)
    opts = ap.parse_args()
    header.start(opts)
    source = (ROOT / "submissions" / P1 / "wrong_answer" / "norm_without_bias.py").read_text()
    with tempfile.TemporaryDirectory() as tmp:
        url = opts.db or f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
        make_account(url, "learner@example.org", "learner")
        make_account(url, "teacher@example.org", "instructor")
        server = Serve(url, "--no-feedback", workers=1).start()
        try:
            learner, csrf = session(server.base, "learner@example.org")
            teacher, _ = session(server.base, "teacher@example.org")
            graded(learner, csrf, source, "run")
            sid = graded(learner, csrf, source, "submit")
            targets = [
                ("page", "problem list", learner, "/problems"),
                ("page", "problem page", learner, f"/problems/{P1}"),
                ("page", "report page (Submit, 39 cases)", learner, f"/submissions/{sid}"),
                ("page", "result panel fragment", learner, f"/submissions/{sid}/panel"),
                ("page", "my submissions", learner, "/submissions"),
                ("page", "gradebook (instructor)", teacher, "/gradebook"),
                ("page", "report page, full (instructor)", teacher, f"/submissions/{sid}"),
                ("page", "queue (instructor)", teacher, "/queue"),
                ("api", "GET /healthz", learner, "/healthz"),
                ("api", f"GET /api/v1/problems/{P1}", learner, f"/api/v1/problems/{P1}"),
                ("api", "GET /api/v1/submissions/ID", learner, f"/api/v1/submissions/{sid}"),
                ("file", "static codemirror.js (400 KB)", learner, "/static/vendor/codemirror/lib/codemirror.js"),
            ]
            for _ in range(5):  # warm: templates compiled, problem views built, connections open
                for *_, c, path in targets:
                    assert c.get(path).status_code == 200, path
            times: dict[str, list[float]] = {name: [] for _, name, _, _ in targets}
            for _ in range(opts.rounds):
                for _, name, c, path in targets:
                    start = time.perf_counter()
                    r = c.get(path)
                    r.read()
                    times[name].append((time.perf_counter() - start) * 1000)
                    assert r.status_code == 200, path
            in_browser = None if opts.no_browser else browser_timings(server.base, opts.rounds // 3 or 1, sid)
        finally:
            server.stop()
    print(f"{opts.rounds} loads each, one at a time, warm server (1 worker), {url.split(':')[0]}; "
          f"goal: every page p95 < {GOAL_MS:.0f} ms")
    print(f"  {'':<5} {'what':<48} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    out, met = {}, True
    for kind, name, _, _ in targets:
        t = times[name]
        p50, p95 = statistics.median(t), percentile(t, 0.95)
        out[name] = {"p50_ms": round(p50, 1), "p95_ms": round(p95, 1), "max_ms": round(max(t), 1)}
        met &= kind != "page" or p95 < GOAL_MS
        print(f"  {kind:<5} {name:<48} {p50:>8.1f} {p95:>8.1f} {max(t):>8.1f}")
    print(f"goal {'met' if met else 'NOT met'}")
    if in_browser:
        print("In headless Chromium (navigation timing, ms from the start of navigation; median and p95):")
        print(f"  {'page':<28} {'HTML p50':>9} {'HTML p95':>9} {'load p50':>9} {'load p95':>9}")
        for name, (html, load) in in_browser.items():
            out[f"browser {name}"] = {"html_p50_ms": round(statistics.median(html), 1),
                                      "load_p50_ms": round(statistics.median(load), 1)}
            print(f"  {name:<28} {statistics.median(html):>9.1f} {percentile(html, 0.95):>9.1f} "
                  f"{statistics.median(load):>9.1f} {percentile(load, 0.95):>9.1f}")
    elif in_browser is None and not opts.no_browser:
        print("(no Chromium or Playwright here: no browser timings)")
    print(json.dumps(out))
    header.save(opts)


def browser_timings(base: str, rounds: int, sid: str) -> dict | None:
    import shutil

    chromium = shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if chromium is None:
        return None
    pages = {"problem list": "/problems", "problem page (editor)": f"/problems/{P1}",
             "report page": f"/submissions/{sid}"}
    got: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in pages}
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu", "--no-first-run",
                                                               "--disable-background-networking", "--disable-sync",
                                                               "--disable-component-update"])
        page = b.new_context().new_page()
        page.goto(base + "/login")
        page.fill("#email", "learner@example.org")
        page.fill("#password", PASSWORD)
        page.click("#login button[type=submit]")
        page.wait_for_url(base + "/problems")
        for path in pages.values():  # warm the browser's cache of the static files
            page.goto(base + path, wait_until="load")
        for _ in range(rounds):
            for name, path in pages.items():
                page.goto(base + path, wait_until="load")
                nav = page.evaluate("JSON.stringify(performance.getEntriesByType('navigation')[0])")
                nav = json.loads(nav)
                got[name][0].append(nav["responseEnd"])
                got[name][1].append(nav["loadEventEnd"] or nav["domContentLoadedEventEnd"])
        b.close()
    return got


if __name__ == "__main__":
    main()
