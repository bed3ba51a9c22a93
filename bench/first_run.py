"""A learner's first Run on a fresh server, latency under load, and the floor, in one run.

    python3 bench/first_run.py [--problems ID,...] [--delay S] [--warm-repeat R]
                               [--clients 20] [--each N] [--think S] [--load-seconds S] [--timeout S]

1. first Run: `grader serve --workers 2` on a new SQLite file with every judge cache
   (probe and misconception tables, XLA's persistent cache) in a temporary folder, so
   that it starts cold and the machine's own caches are left alone; rate limits raised.
   A learner opens the page --delay seconds after /readyz is ready (every probe table
   built; a load balancer sends learners on then) and, problem after
   problem, Runs the first accepted file (the reference if there is none), POST to done.
   Once /healthz lists no problem as warming, the same file is Run again --warm-repeat
   times (warm Run, the median), then a second accepted file once: a new program on a
   warm server. Beside each: the warming phase its problem was in when its first Run
   was sent (probe, hint, cache or no), and where the time went (queue, grade, the child's cases and compiles, from
   the submission's timestamps and its report).
2. load: --clients learners (one account each) on per_example_grad_clipping, each
   sending a Run then a Submit of one file, then the next file, --each in all or until
   --load-seconds, reading each result about --think seconds first (0: back to back, which
   measures the service's saturation, not a class's latency); several accepted and wrong
   files, each sent by several clients.
3. floor: the bare jit of each file used (bench/grading_speed.py's floor, one core):
   public cases beside Runs, every case beside Submits.
Goals: first Run <= 1.5 x warm Run; under load, Run p50 <= 0.5 s and Submit p50 <= 1.2 s.
Everything is on 127.0.0.1; the server is stopped and the folder removed however it ends.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

import header
import httpx
from service_harness import P1, ROOT, Serve, make_user, percentile, submit, wait_events

from grading_speed import floor_envs, floor_seconds, write_floor_inputs, write_sources

RUN_GOAL, SUBMIT_GOAL, FIRST_GOAL = 0.5, 1.2, 1.5
LOAD_FILES = ["accepted/" + f for f in ("argnums_tuple.py", "flat_norm.py", "python_control_flow.py",
                                        "ravel_pytree.py")] + \
             ["wrong_answer/" + f for f in ("always_rescale.py", "bias_shape.py", "norm_without_bias.py",
                                            "sum_not_mean.py")]
SERVE_ARGS = ("--run-limit", "100000/min", "--submit-limit", "100000/min", "--max-pending", "100",
              "--queue-cap", "100000", "--storage-per-day", "4GiB")


class Health(threading.Thread):
    """/healthz four times a second: when the server got healthy and when each problem
    left the warming list (seconds since the server's start)."""

    def __init__(self, base: str, t0: float) -> None:
        super().__init__(daemon=True)
        self.base, self.t0, self.halt = base, t0, threading.Event()
        self.samples: list[tuple[float, bool, list[str]]] = []

    def run(self) -> None:
        with httpx.Client(timeout=5) as client:
            while not self.halt.wait(0.25):
                try:
                    r = client.get(self.base + "/healthz")
                    self.samples.append((time.monotonic() - self.t0, r.status_code == 200, r.json()["warming"]))
                except (httpx.HTTPError, ValueError, KeyError):
                    pass

    def warm_at(self, pid: str) -> float | None:
        """The first sample in which ``pid`` was no longer listed as warming."""
        return next((t for t, _ok, pending in self.samples if pid not in pending), None)

    def hints_at(self) -> float | None:
        """The first sample in which no problem was left in the probe or hint phase."""
        return next((t for t, _ok, pending in self.samples
                     if not {"probe", "hint"} & set(pending.values())), None)

    def all_warm_at(self) -> float | None:
        return next((t for t, ok, pending in self.samples if ok and not pending), None)


def _when(text: str | None) -> float | None:
    return datetime.fromisoformat(text).timestamp() if text else None


def timed_grade(base: str, token: str, problem: str, source: str, kind: str, deadline: float) -> dict:
    """POST, follow the events to done: the seconds, and where they went by the
    submission's timestamps (queue: created to claimed; grade: claimed to finished) and
    its report (the child's case times and, when reported, their compiles)."""
    start = time.perf_counter()
    sid = submit(base, token, problem, source, kind, deadline=deadline)
    wait_events(base, token, sid, timeout=max(1.0, deadline - time.time()))
    took = time.perf_counter() - start
    doc = httpx.get(f"{base}/api/v1/submissions/{sid}", headers={"Authorization": f"Bearer {token}"},
                    timeout=60).json()
    created, started, finished = (_when(doc.get(k)) for k in ("created_at", "started_at", "finished_at"))
    cases = (doc.get("report") or {}).get("cases") or []
    costs = [c["cost"] for c in cases if isinstance(c.get("cost"), dict) and "compile_ms" in c["cost"]]
    return {"seconds": took, "verdict": doc.get("verdict"),
            "queue": started - created if started and created else None,
            "grade": finished - started if finished and started else None,
            "cases": sum(c.get("time_ms") or 0.0 for c in cases) / 1000,
            "compile": sum(c["compile_ms"] for c in costs) / 1000 if costs else None}


def first_files(pid: str) -> list[Path]:
    accepted = sorted((ROOT / "submissions" / pid / "accepted").glob("*.py"))
    return accepted or [ROOT / "problems" / pid / "reference.py"]


def floors(problem, files: list[Path], folder: Path, public: bool) -> dict[str, list[float]]:
    """Per file, the floor F and F_x (grading_speed.py) on the public cases or on all."""
    cases, sources = folder / "cases", folder / "sources"
    cases.mkdir(parents=True)
    sources.mkdir()
    write_floor_inputs(problem, cases, problem.public_cases() if public else None)
    paths = write_sources([str(f) for f in files], sources)
    return {key: floor_seconds(problem, cases, paths, env) for key, env in floor_envs().items()}


def fmt(x: float | None, width: int = 6, digits: int = 2) -> str:
    return f"{x:{width}.{digits}f}" if x is not None else f"{'-':>{width}}"


def load(base: str, tokens: list[str], each: int, seconds: float, deadline: float,
         think: float) -> tuple[list[dict], float]:
    """Every client: Run then Submit of one file, then the next file, ``each`` in all or
    until ``seconds`` have passed, reading each result for a time drawn around ``think``
    seconds (exponential, seeded per client; 0: back to back, the service's saturation);
    returns every grade and the wall time."""
    stop_at = min(deadline, time.time() + seconds)
    done: list[dict] = []
    lock = threading.Lock()
    errors: list[str] = []

    def client(c: int, token: str) -> None:
        rng = random.Random(c)
        for k in range(each):
            if think > 0:  # the first wait staggers the clients' starts
                time.sleep(rng.expovariate(1 / think))
            if time.time() >= stop_at:
                return
            rel = LOAD_FILES[(c + k // 2) % len(LOAD_FILES)]
            kind = "run" if k % 2 == 0 else "submit"
            try:
                out = timed_grade(base, token, P1, (ROOT / "submissions" / P1 / rel).read_text(), kind, deadline)
            except Exception as exc:  # a lost grade is reported, not hidden in the percentiles
                errors.append(f"{rel} {kind}: {type(exc).__name__}: {exc}")
                return
            with lock:
                done.append(dict(out, file=rel, kind=kind))

    threads = [threading.Thread(target=client, args=(c, t), daemon=True) for c, t in enumerate(tokens)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(0.0, deadline - time.time()))
    if errors:
        raise RuntimeError("under load: " + "; ".join(errors[:5]))
    return done, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", default=None, help="comma-separated problem ids (default: all under problems/)")
    ap.add_argument("--delay", type=float, default=0.0,
                    help="seconds after /readyz is ready before the learner's first Run")
    ap.add_argument("--warm-repeat", type=int, default=3, help="warm Runs of each file; the median is reported")
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--each", type=int, default=6, help="grades per client under load (Run, Submit, Run, ...)")
    ap.add_argument("--think", type=float, default=20.0,
                    help="under load, the mean seconds a client reads a result before its next grade (0: none)")
    ap.add_argument("--load-seconds", type=float, default=240.0, help="no new grade under load after this")
    ap.add_argument("--warm-timeout", type=float, default=1200.0,
                    help="longest wait for every problem to be warm before the warm Runs")
    ap.add_argument("--timeout", type=float, default=3000.0, help="the whole bench's bound, in seconds")
    header.add_save_option(ap)
    opts = ap.parse_args()
    header.start(opts)
    deadline = time.time() + opts.timeout

    def out_of_time(_sig, _frame):
        raise TimeoutError(f"the bench passed its --timeout of {opts.timeout:.0f} s")

    signal.signal(signal.SIGALRM, out_of_time)
    signal.alarm(int(opts.timeout) + 1)
    from grader.problem import all_problem_ids, find_problem

    pids = opts.problems.split(",") if opts.problems else [p for p in all_problem_ids()
                                                           if (ROOT / "problems" / p).is_dir()]
    tmp = tempfile.TemporaryDirectory(prefix="jaxjudge-first-run-")
    root = Path(tmp.name)
    # The server and its sandboxes inherit these: every judge cache starts empty, and
    # the machine's own (~/.cache/jaxjudge) is neither read nor written.
    os.environ.update(JAXJUDGE_CACHE=str(root / "cache"), JAXJUDGE_XLA_CACHE=str(root / "xla"),
                      XDG_CACHE_HOME=str(root / "xdg"))
    server = health = None
    try:
        # The floors first, on an idle machine: the server's warming would slow them.
        problems = {pid: find_problem(pid) for pid in pids}
        files = {pid: first_files(pid)[:2] for pid in pids}
        floor_run = {pid: floors(problems[pid], files[pid], root / "floor" / pid, True) for pid in pids}
        p1 = find_problem(P1)
        load_paths = [ROOT / "submissions" / P1 / rel for rel in LOAD_FILES]
        load_floor = {kind: floors(p1, load_paths, root / "floor" / f"load-{kind}", kind == "run")
                      for kind in ("run", "submit")}

        url = f"sqlite:///{root / 'judge.sqlite3'}"
        learner = make_user(url, "learner@example.org")
        tokens = [make_user(url, f"client{c}@example.org") for c in range(opts.clients)]
        server = Serve(url, *SERVE_ARGS, workers=2)
        t0 = time.monotonic()
        health = Health(server.base, t0)
        health.start()
        server.start(timeout=min(600.0, deadline - time.time()))
        healthy = time.monotonic() - t0
        while time.time() < deadline and httpx.get(server.base + "/readyz", timeout=10).status_code != 200:
            time.sleep(0.25)
        ready = time.monotonic() - t0
        time.sleep(opts.delay)

        first: dict[str, dict] = {}
        for pid in pids:
            pending = httpx.get(server.base + "/healthz", timeout=10).json()["warming"]
            sent = time.monotonic() - t0
            first[pid] = dict(timed_grade(server.base, learner, pid, files[pid][0].read_text(), "run", deadline),
                              warming=pending.get(pid, "no"), sent=sent)

        warm_limit = min(deadline, time.time() + opts.warm_timeout)
        while time.time() < warm_limit and (not health.samples or health.samples[-1][2]):
            time.sleep(0.5)
        still = health.samples[-1][2] if health.samples else ["(unknown)"]
        warm: dict[str, dict] = {}
        new_file: dict[str, dict] = {}
        for pid in pids:
            src = files[pid][0].read_text()
            runs = [timed_grade(server.base, learner, pid, src, "run", deadline) for _ in range(opts.warm_repeat)]
            mid = sorted(runs, key=lambda r: r["seconds"])[len(runs) // 2]
            warm[pid] = dict(mid, verdicts={r["verdict"] for r in runs})
            if len(files[pid]) > 1:
                new_file[pid] = timed_grade(server.base, learner, pid, files[pid][1].read_text(), "run", deadline)

        graded, wall = load(server.base, tokens, opts.each, opts.load_seconds, deadline, opts.think)
    finally:
        signal.alarm(0)
        if health is not None:
            health.halt.set()
        if server is not None and getattr(server, "proc", None) is not None:
            server.stop()
        if server is not None:
            server.log.unlink(missing_ok=True)
        tmp.cleanup()

    # ------------------------------------------------------------ 1. first Run
    all_warm, hints = health.all_warm_at(), health.hints_at()
    print("server: 2 workers, SQLite, feedback on, every judge cache empty at start (a temporary folder)")
    print(f"  start -> /healthz healthy {healthy:.1f} s (the zygotes' start and one reference case) -> /readyz ready "
          f"{ready:.1f} s (every probe table, and the hints of the problems in use: here every problem's);"
          f" every problem's hints built {fmt(hints - ready if hints else None, 0, 1)} s after ready; every "
          f"problem warm {fmt(all_warm - ready if all_warm else None, 0, 1)} s after ready"
          + (f" (still warming at the warm Runs: {', '.join(still)})" if still else ""))
    print(f"  the learner's first Runs: {opts.delay:g} s after ready, one problem after another, in this order")
    print()
    print(f"1. First Run on a fresh server against the warm Run of the same file (POST to done, s; warm: median "
          f"of {opts.warm_repeat}),")
    print("   beside the floor of that file on the public cases (F: bare jit, one core; F_x: with the judge's XLA "
          "flags)")
    print(f"   {'problem':30s} {'file (accepted/)':28s} {'warming':>7s} {'first':>6s} {'warm':>6s} {'first/warm':>10s}"
          f" {'F':>5s} {'F_x':>5s} {'warm/F_x':>8s}")
    ratios = []
    for pid in pids:
        f, w = first[pid], warm[pid]
        ratio = f["seconds"] / w["seconds"]
        ratios.append(ratio)
        fl, fx = floor_run[pid]["floor"][0], floor_run[pid]["floor_x"][0]
        bad = "" if f["verdict"] == "AC" and w["verdicts"] == {"AC"} else f"  (verdicts {f['verdict']}, " \
                                                                          f"{'/'.join(sorted(w['verdicts']))})"
        print(f"   {pid:30s} {files[pid][0].name:28s} {f['warming']:>7s} {fmt(f['seconds'])} "
              f"{fmt(w['seconds'])} {ratio:10.1f} {fl:5.2f} {fx:5.2f} {w['seconds'] / fx:8.2f}{bad}")
    print(f"   median first/warm {statistics.median(ratios):.1f}, max {max(ratios):.1f}   "
          f"(goal: first Run <= {FIRST_GOAL} x warm Run; "
          f"met by {sum(r <= FIRST_GOAL for r in ratios)} of {len(ratios)} problems)")
    print()
    print("   where the first Run's time went, first / warm (s): queue = created -> claimed by a worker (a worker")
    print("   warming a problem looks at the queue only between problems); grade = claimed -> finished (includes")
    print("   waiting for the Run's own problem to be warmed); cases, compile = the child's case times and their")
    print("   trace + compile, summed, from the stored report; sent, warm at = s after ready")
    print(f"   {'problem':30s} {'sent':>6s} {'warm at':>7s} {'queue':>13s} {'grade':>13s} {'cases':>11s} "
          f"{'compile':>11s}")
    for pid in pids:
        f, w = first[pid], warm[pid]
        at = health.warm_at(pid)
        print(f"   {pid:30s} {f['sent'] - ready:6.1f} {fmt(at - ready if at else None, 7, 1)} "
              f"{fmt(f['queue'])} / {fmt(w['queue'], 4)} {fmt(f['grade'])} / {fmt(w['grade'], 4)} "
              f"{fmt(f['cases'], 4)} / {fmt(w['cases'], 4)} {fmt(f['compile'], 4)} / {fmt(w['compile'], 4)}")
    if new_file:
        print()
        print("   variant: the first Run of a second accepted file on the warm server (a new program: no grade has")
        print("   compiled it), against the warm Run of the first file, and its own floor")
        print(f"   {'problem':30s} {'file (accepted/)':28s} {'new':>6s} {'warm':>6s} {'new/warm':>8s} {'F':>5s} "
              f"{'F_x':>5s}")
        for pid, n in new_file.items():
            fl, fx = floor_run[pid]["floor"][1], floor_run[pid]["floor_x"][1]
            print(f"   {pid:30s} {files[pid][1].name:28s} {fmt(n['seconds'])} {fmt(warm[pid]['seconds'])} "
                  f"{n['seconds'] / warm[pid]['seconds']:8.2f} {fl:5.2f} {fx:5.2f}"
                  + ("" if n["verdict"] == "AC" else f"  (verdict {n['verdict']})"))

    # ------------------------------------------------------------ 2. under load
    sent = {rel: sum(1 for g in graded if g["file"] == rel) for rel in LOAD_FILES}
    print()
    print(f"2. Latency under load: {P1}, {opts.clients} clients (one account each, threads), 2 workers, feedback on;")
    reading = f"reading each result {opts.think:g} s on average" if opts.think > 0 else "back to back (saturation)"
    print(f"   each client Runs then Submits one file, then the next, {reading}: {len(graded)} grades in {wall:.1f} s, "
          f"{len(graded) / wall:.2f} grades/s")
    print(f"   {len(LOAD_FILES)} distinct files ({sum(r.startswith('accepted/') for r in LOAD_FILES)} accepted, "
          f"{sum(r.startswith('wrong_answer/') for r in LOAD_FILES)} wrong_answer), each sent "
          f"{min(sent.values())}-{max(sent.values())} times:")
    print("   the same sources are resubmitted, but no grade reuses another's compile of the learner's program")
    print("   (sandboxed children only read XLA's cache, which holds the reference's eager programs)")
    print(f"   {'kind':7s} {'n':>4s} {'p50':>6s} {'p95':>6s} {'max':>6s} {'queue p50':>9s} {'grade p50':>9s} "
          f"{'grade p95':>9s} {'floor F_x p50':>13s} {'goal':>12s}")
    summary = {}
    for kind, goal in (("run", RUN_GOAL), ("submit", SUBMIT_GOAL)):
        rows = [g for g in graded if g["kind"] == kind]
        if not rows:
            continue
        t = [g["seconds"] for g in rows]
        q = [g["queue"] for g in rows if g["queue"] is not None]
        gr = [g["grade"] for g in rows if g["grade"] is not None]
        fx = statistics.median(load_floor[kind]["floor_x"])
        p50 = statistics.median(t)
        summary[kind] = {"n": len(t), "p50": round(p50, 3), "p95": round(percentile(t, 0.95), 3),
                         "grade_p50": round(statistics.median(gr), 3), "floor_x_p50": round(fx, 3)}
        print(f"   {kind:7s} {len(t):4d} {p50:6.2f} {percentile(t, 0.95):6.2f} {max(t):6.2f} "
              f"{statistics.median(q):9.2f} {statistics.median(gr):9.2f} {percentile(gr, 0.95):9.2f} "
              f"{fx:13.2f}   p50 <= {goal} s")
    print("   per file: the floor (public cases for Run, every case for Submit) beside the grade's p50 "
          "(claimed -> finished)")
    print(f"   {'file':36s} {'Run F':>6s} {'F_x':>5s} {'grade':>6s}   {'Submit F':>8s} {'F_x':>5s} {'grade':>6s}")
    for i, rel in enumerate(LOAD_FILES):
        cells = []
        for kind in ("run", "submit"):
            gr = [g["grade"] for g in graded if g["file"] == rel and g["kind"] == kind and g["grade"] is not None]
            cells.append(f"{load_floor[kind]['floor'][i]:{6 if kind == 'run' else 8}.2f} "
                         f"{load_floor[kind]['floor_x'][i]:5.2f} {fmt(statistics.median(gr) if gr else None)}")
        print(f"   {rel:36s} {cells[0]}   {cells[1]}")
    print(json.dumps({"healthy_s": round(healthy, 2), "ready_s": round(ready, 2), "all_warm_after_ready_s":
                      round(all_warm - ready, 1) if all_warm else None,
                      "first_over_warm_median": round(statistics.median(ratios), 2), "load": summary}))
    header.save(opts)


if __name__ == "__main__":
    main()
