"""Drawing at the server's start (``service/queue/drawing.py``) fails closed: a problem
whose every draw the strength gate refuses is no longer waited for, has no suite (so its
grades are IE, never graded with other hidden cases), and the log names each refused
draw's reason; a cancelled draw (the server stopping) ends at once and leaves no suite."""
from __future__ import annotations

import logging
import shutil
import threading
import time
from pathlib import Path

import pytest

from support import SUBMISSIONS, stripped_copy

PID = "value_and_grad_loss"


def _bare_problem_with_a_wrong_accepted_file(tmp_path, monkeypatch) -> None:
    """An install without the shipped hidden cases (its gate: the corpus alone) whose only
    corpus file is a wrong answer filed as accepted: no draw can pass."""
    from grader.problem.catalogue import PROBLEMS_ENV

    stripped_copy(tmp_path / "problems", PID)
    accepted = tmp_path / "submissions" / PID / "accepted"
    accepted.mkdir(parents=True)
    shutil.copy(SUBMISSIONS / PID / "wrong_answer" / "bias_left_out.py", accepted / "bias_left_out.py")
    monkeypatch.setenv(PROBLEMS_ENV, str(tmp_path / "problems"))  # the draw's own process reads it too


@pytest.mark.slow  # five draws, each checked case by case in a real sandbox
def test_a_problem_whose_every_draw_is_refused_is_not_waited_for_and_its_grades_find_no_suite(tmp_path, monkeypatch,
                                                                                              caplog):
    from grader.problem import ProblemError, find_problem
    from grader.problem.catalogue import use_suite
    from grader.service.queue.drawing import Drawing

    _bare_problem_with_a_wrong_accepted_file(tmp_path, monkeypatch)
    drawing = Drawing(tmp_path / "suite", [PID])
    assert drawing.pending() == [PID] and not drawing.ready()
    with caplog.at_level(logging.WARNING, logger="grader.service"):
        drawing.run()
    assert drawing.ready() and drawing.pending() == []
    assert drawing.failed[PID].startswith("FAILED")
    logged = caplog.text
    for attempt in range(5):
        assert f"{PID}: draw {attempt}: the corpus does not get its verdicts: accepted/bias_left_out.py" in logged
    assert "its grades are IE" in logged and drawing.secret.value.hex() not in logged
    use_suite(tmp_path / "suite")
    try:
        with pytest.raises(ProblemError, match="no drawn suite for this revision"):
            find_problem(PID)  # what a worker's grade loads: IE, naming the missing suite
    finally:
        use_suite(None)


def test_a_cancelled_draw_ends_at_once_and_leaves_the_problem_without_a_suite(tmp_path, monkeypatch):
    from grader.problem import load_problem
    from grader.service.queue.drawing import Drawing

    _bare_problem_with_a_wrong_accepted_file(tmp_path, monkeypatch)
    drawing = Drawing(tmp_path / "suite", [PID])
    runner = threading.Thread(target=drawing.run)
    runner.start()
    time.sleep(3)  # the draw's process is working
    start = time.monotonic()
    drawing.cancel()
    runner.join(timeout=30)
    assert not runner.is_alive() and time.monotonic() - start < 10
    assert drawing.pending() == [] and PID in drawing.failed
    assert drawing.store.manifest(load_problem(tmp_path / "problems" / PID)) is None


def _reads(path) -> str:
    try:
        return path.read_bytes().decode(errors="replace")
    except OSError:  # a process that ended meanwhile
        return ""


@pytest.mark.slow  # a live server that starts drawing, then is stopped
def test_a_server_stopped_while_it_draws_ends_the_draw_and_exits_within_its_grace(tmp_path):
    import httpx
    from service_support import Server, sqlite_url

    server = Server(sqlite_url(tmp_path), "--suite", str(tmp_path / "suite"), "--shutdown-grace", "2",
                    workers=1).start()
    try:
        health = httpx.get(server.base + "/healthz").json()
        assert "suite" in health["warming"].values()  # the whole catalogue to draw: minutes
        time.sleep(2)
        start = time.monotonic()
        assert server.proc is not None
        server.proc.terminate()
        server.proc.wait(timeout=30)
        assert time.monotonic() - start < 15  # the grace, and no draw waited for
    finally:
        server.stop()
    assert "no suite drawn: the draw ended before" in server.output()
    left = [c for c in Path("/proc").glob("[0-9]*/cmdline") if _reads(c).find(str(tmp_path / "suite")) >= 0]
    assert not left  # the draw's process ended with the server
    assert not list((tmp_path / "suite").glob("*/*/*/suite.json"))  # cut short: drawn again next start


def test_a_draw_waiting_for_another_process_says_so_in_a_line_the_server_does_not_take_for_an_outcome(tmp_path):
    """Two servers drawing into one folder: ``grader suite draw`` waits for the process
    holding a problem's draw, says so, then keeps what that process drew; the server
    reading its lines still waits for the problem's outcome."""
    import subprocess
    import sys

    from grader.authoring.suites import Draw, _record
    from grader.problem import find_problem
    from grader.service.queue.drawing import Drawing

    drawing = Drawing(tmp_path / "suite", [PID])
    problem = find_problem(PID)
    with drawing.store.drawing(problem):  # another process's draw, in progress
        proc = subprocess.Popen([sys.executable, "-m", "grader", "suite", "draw", PID, "--suite",
                                 str(tmp_path / "suite"), "--no-mutants"], stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        lines = [proc.stdout.readline().rstrip("\n") for _ in range(2)]
        assert lines == [f"suite {drawing.secret.id}",
                         f"waiting for another process drawing {PID} into {tmp_path / 'suite'}"]
        last = drawing.read_line(lines[1], "")
        assert drawing.pending() == [PID] and drawing.failed == {}
        macs = drawing.store.write_cases(problem, {"gen_0": '{"input": {}}'})
        _record(drawing.store, problem, Draw(PID, drawing.secret.id, passed=True, attempt=3, ids=["gen_0"], macs=macs),
                0.0)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0 and out.startswith(f"{PID}: kept, 1 hidden cases")
    drawing.read_line(out.splitlines()[0], last)
    assert drawing.pending() == [] and drawing.failed == {}


@pytest.mark.slow  # a live server whose one draw is refused five times (quickly: its generator raises)
def test_a_server_names_the_problems_it_could_not_draw_grades_their_runs_and_not_their_submits_until_drawn(tmp_path):
    """A problem whose draws all fail: ``/api/v1/queue`` (``suite_failed``) and the
    ``/queue`` page say which and why, its Submits are IE (its Runs are graded); once a suite is drawn for it
    (``grader suite draw``, here a stand-in) the next grade finds it and the list is empty."""
    import httpx
    from service_support import Server, logged_in, make_user, post, problem_copy, sqlite_url, wait_done

    from grader.problem import all_problem_ids, find_problem, load_problem
    from support import drawn_suite

    problems = problem_copy(tmp_path / "problems", [PID])
    with open(problems / PID / "generator.py", "a") as fh:
        fh.write("\n\ndef generate(rng, index):\n    raise ValueError('a bug in the generator')\n")
    folder = tmp_path / "suite"
    for pid in all_problem_ids():  # stand-ins for the others: the whole catalogue's draw takes minutes
        if pid != PID:
            drawn_suite(folder, find_problem(pid), pid, keep=2)
    url = sqlite_url(tmp_path)
    make_user(url, "teacher@example.org", instructor=True, password="a long enough password")
    token = make_user(url, "ann@example.org")
    server = Server(url, "--suite", str(folder), problems=problems, workers=1).start()
    try:
        with server.client(make_user(url, "tess@example.org", instructor=True)) as teacher, \
                server.client(token) as ann, \
                logged_in(server.base, "teacher@example.org", "a long enough password") as page:
            deadline = time.time() + 120
            while not (failed := teacher.get("/queue").json()["suite_failed"]) and time.time() < deadline:
                time.sleep(0.5)
            assert list(failed) == [PID] and "generator.py failed: ValueError: a bug in the generator" in failed[PID]
            while httpx.get(server.base + "/readyz").status_code != 200 and time.time() < deadline:
                time.sleep(0.2)
            assert httpx.get(server.base + "/readyz").status_code == 200  # not waited for
            shown = page.get("/queue").text
            assert "hidden suites not drawn" in shown and "a bug in the generator" in shown
            source = (SUBMISSIONS / PID / "accepted" / "argnums_tuple.py").read_text()
            refused = wait_done(ann, post(ann, source, "submit", problem=PID).json()["id"])
            assert refused["verdict"] == "IE" and "no drawn suite" in refused["report"]["message"]
            run = wait_done(ann, post(ann, source, "run", problem=PID).json()["id"])  # the public cases: no suite
            assert (run["verdict"], run["total"]) == ("AC", len(load_problem(problems / PID).public_cases()))

            drawn_suite(folder, load_problem(problems / PID), PID, keep=2)  # as grader suite draw leaves it
            assert teacher.get("/queue").json()["suite_failed"] == {}
            assert "hidden suites not drawn" not in page.get("/queue").text
            graded = wait_done(ann, post(ann, source, "submit", problem=PID).json()["id"])
            assert (graded["verdict"], graded["total"]) == ("AC", len(load_problem(problems / PID).public_cases()) + 2)
    finally:
        server.stop()


# A stand-in for ``grader suite draw``: says its scheduling policy and its child's, then,
# once the test lets it (go<n>), that the problem's draw failed.
_FAKE_DRAW = r"""
import os, pathlib, subprocess, sys, time
folder, pid = pathlib.Path(sys.argv[1]), sys.argv[2]
n = len(list(folder.glob("started*")))
child = subprocess.run([sys.executable, "-c", "import os; print(os.sched_getscheduler(0))"],
                       capture_output=True, text=True).stdout.strip()
print(f"policy {os.sched_getscheduler(0)} child {child}", flush=True)
(folder / f"started{n}").touch()
while not (folder / f"go{n}").exists():
    time.sleep(0.01)
print(f"{pid}: FAILED, 0 hidden cases, 0.1 s", flush=True)
"""


@pytest.mark.parametrize("graded_rounds, draws", [(0, 1), (99, 3)])
def test_a_draw_runs_idle_and_one_that_failed_while_grades_ran_is_drawn_again_at_most_twice(
        tmp_path, monkeypatch, caplog, graded_rounds, draws):
    import os
    import sys

    from grader.service.queue import drawing as module
    from grader.service.queue.drawing import Drawing

    signals = tmp_path / "signals"
    signals.mkdir()
    drawing = Drawing(tmp_path / "suite", [PID])
    monkeypatch.setattr(Drawing, "command", lambda self, ids, extra: [sys.executable, "-c", _FAKE_DRAW,
                                                                      str(signals), *ids])

    def conduct() -> None:  # a grade starts during the first `graded_rounds` draws
        for n in range(module.RETRIES + 1):
            deadline = time.monotonic() + 30
            while not (signals / f"started{n}").exists():
                if time.monotonic() > deadline:
                    return
                time.sleep(0.01)
            if n < graded_rounds:
                drawing.grades += 1
            (signals / f"go{n}").touch()

    conductor = threading.Thread(target=conduct, daemon=True)
    conductor.start()
    with caplog.at_level(logging.INFO, logger="grader.service"):
        drawing.run()
    assert len(list(signals.glob("started*"))) == draws == 1 + min(graded_rounds, module.RETRIES)
    idle = str(os.SCHED_IDLE)
    assert f"policy {idle} child {idle}" in caplog.text  # the draw and what it starts yield to grades
    assert drawing.failed[PID].startswith("FAILED") and drawing.pending() == []
    assert "its grades are IE" in caplog.text  # after the last draw, the failure stands


# A stand-in for ``grader suite draw`` that says each problem it is given was drawn.
_FAKE_DRAWN = r"""
import sys
for pid in sys.argv[1:]:
    print(f"{pid}: drawn (attempt 0), 3 hidden cases, 0.1 s", flush=True)
"""


def test_a_suite_changed_on_disk_while_the_server_runs_is_drawn_again_its_submit_waits_and_its_run_grades_public(
        tmp_path, monkeypatch, caplog):
    import sys

    from grader.problem import load_problem
    from grader.problem.catalogue import use_suite
    from grader.service.core.config import ServiceConfig
    from grader.service.queue import jobs
    from grader.service.queue.drawing import Drawing
    from grader.service.queue.workers import Workers, _Redrawn
    from support import PROBLEMS, drawn_suite

    folder = tmp_path / "suite"
    problem = load_problem(PROBLEMS / PID)
    _, ids = drawn_suite(folder, problem, PID, keep=3)
    drawing = Drawing(folder, [PID])
    assert drawing.pending() == []  # kept: nothing to draw at this start
    drawn: list[list[str]] = []

    def command(self, pids, extra):
        drawn.append(list(pids))
        return [sys.executable, "-c", _FAKE_DRAWN, *pids]

    monkeypatch.setattr(Drawing, "command", command)
    workers = Workers(db=None, config=ServiceConfig(db_url="sqlite:///unused"))
    workers.drawing = drawing
    case = next((folder / drawing.secret.id / PID).glob("*/hidden/drawn_000.json"))
    case.write_text(case.read_text().replace("1", "2", 1))  # changed on disk
    use_suite(folder)
    try:
        with caplog.at_level(logging.WARNING):
            with pytest.raises(_Redrawn):  # the Submit goes back in line
                workers._problem_for(jobs.Claim(1, "s1", PID, "submit", "", 1))
            deadline = time.monotonic() + 30
            while drawing.pending() and time.monotonic() < deadline:
                time.sleep(0.05)
        assert drawn == [[PID]]  # drawn again, once
        assert f"{PID}: its drawn suite is refused (see above); drawing it again" in caplog.text
        assert "fails its MAC" in caplog.text  # the seal said why
        run = workers._problem_for(jobs.Claim(2, "r1", PID, "run", "", 1))  # (the stand-in wrote no suite)
        assert not [c for c in run.cases if c.hidden]  # a Run meanwhile: the public cases alone
    finally:
        use_suite(None)


def test_a_problem_put_back_while_a_draw_runs_is_drawn_by_it_and_only_once(tmp_path, monkeypatch):
    import sys

    from grader.service.queue.drawing import Drawing

    signals = tmp_path / "signals"
    signals.mkdir()
    drawing = Drawing(tmp_path / "suite", [PID])
    calls: list[list[str]] = []
    waits = r"""
import pathlib, sys, time
while not pathlib.Path(sys.argv[1]).exists():
    time.sleep(0.01)
for pid in sys.argv[2:]:
    print(f"{pid}: drawn (attempt 0), 3 hidden cases, 0.1 s", flush=True)
"""

    def command(self, pids, extra):
        calls.append(list(pids))
        return [sys.executable, "-c", waits, str(signals / f"go{len(calls)}"), *pids]

    monkeypatch.setattr(Drawing, "command", command)
    runner = threading.Thread(target=drawing.run)
    runner.start()
    deadline = time.monotonic() + 30
    while not calls and time.monotonic() < deadline:
        time.sleep(0.01)
    other = "per_example_grad_clipping"
    assert drawing.redraw(other) and not drawing.redraw(other)  # put back once
    (signals / "go1").touch()
    deadline = time.monotonic() + 30
    while len(calls) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    (signals / "go2").touch()
    runner.join(30)
    assert not runner.is_alive() and calls == [[PID], [other]] and drawing.pending() == []
