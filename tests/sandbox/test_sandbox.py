"""Sandbox properties beyond the corpus: isolation between submissions graded by one
zygote, reporting of unavailable layers, and the strict flag."""
import os
import subprocess
import sys

import pytest

from support import ROOT, SUBMISSIONS, grade_source

P1 = "per_example_grad_clipping"
GOOD = (SUBMISSIONS / P1 / "accepted" / "flat_norm.py").read_text()
POISONER = GOOD.replace("def per_example_grad_clip(", """def _tamper():
    for name in ("sum", "sqrt", "maximum"):
        try:
            setattr(jnp, name, lambda *a, **k: 0.0)
        except Exception:
            pass
    jax.config = None


_tamper()


def per_example_grad_clip(""")


def test_module_tampering_is_refused_and_the_next_submission_on_that_zygote_is_accepted(problem1, pool):
    sandbox = pool.take()
    try:
        first = grade_source(problem1, POISONER, sandbox).report
        second = grade_source(problem1, GOOD, sandbox).report
    finally:
        pool.give(sandbox)
    assert first.verdict == "RE"  # the tampering is refused outright
    assert second.verdict == "AC" and second.passed == second.total


def test_all_layers_active_here(problem1, pool):
    sandbox = pool.take()
    try:
        report = grade_source(problem1, GOOD, sandbox, problem1.public_cases()).report
    finally:
        pool.give(sandbox)
    assert report.sandbox["layers"] == ["fds", "netns", "rlimits", "landlock", "seccomp"]


def run_cli(*args, env_extra):
    env = dict(os.environ, **env_extra)
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env=env)


@pytest.mark.slow
def test_missing_layer_is_reported_and_strict_refuses():
    path = str(SUBMISSIONS / P1 / "accepted" / "flat_norm.py")
    env = {"JAXJUDGE_DISABLE_LAYERS": "landlock,seccomp"}
    relaxed = run_cli("grade", path, "--problem", P1, "--no-feedback", env_extra=env)
    assert relaxed.returncode == 0 and "unavailable: landlock" in relaxed.stdout
    strict = run_cli("grade", path, "--problem", P1, "--strict-sandbox", "--format", "json", env_extra=env)
    assert strict.returncode == 2 and '"verdict": "IE"' in strict.stdout and "strict sandbox" in strict.stdout


def test_strict_runs_no_submission_code_in_a_weaker_sandbox(problem1, pool, monkeypatch):
    from grader.judge.pipeline import grade
    from grader.judge.submission import parse_source

    monkeypatch.setenv("JAXJUDGE_DISABLE_LAYERS", "seccomp")
    sandbox = pool.take()
    try:
        relaxed = grade(problem1, parse_source(GOOD, "<test>"), sandbox, problem1.public_cases())
        strict = grade(problem1, parse_source(GOOD, "<test>"), sandbox, problem1.public_cases(), strict=True)
    finally:
        pool.give(sandbox)
    assert relaxed.run.load_status == "ok" and relaxed.report.verdict == "AC"
    assert strict.report.verdict == "IE" and "seccomp" in strict.report.message
    assert strict.run.load_status == "not_run" and all(c.status == "not_run" for c in strict.run.cases.values())


RAISES_ON_HIDDEN = GOOD.replace("    return {\"grads\"", "    if x.shape[0] == 8:\n        print('secret', x)\n"
                                "        raise ValueError('secret ' + str(x))\n    return {\"grads\"")
WRONG_ON_HIDDEN = GOOD.replace("    return {\"grads\"", "    if x.shape[0] == 8:\n        norms = norms * 3.0\n"
                               "    return {\"grads\"")


def test_hidden_failures_reveal_nothing(problem1, pool):
    import json

    from grader.judge.feedback import Feedback

    sandbox = pool.take()
    try:
        raised = grade_source(problem1, RAISES_ON_HIDDEN, sandbox).report
        wrong = grade_source(problem1, WRONG_ON_HIDDEN, sandbox, feedback=Feedback(counterexample=False)).report
    finally:
        pool.give(sandbox)
    assert raised.verdict == "RE" and raised.message.endswith(": runtime error")
    assert "secret" not in json.dumps(raised.to_json())
    assert wrong.verdict == "WA" and wrong.message.endswith(": wrong value")
    hidden_x = [json.dumps(c.input["x"])[2:12] for c in problem1.cases if c.hidden and len(c.input["x"]) == 8]
    text = json.dumps(wrong.to_json())
    assert hidden_x and not any(x in text for x in hidden_x)


@pytest.mark.slow
def test_zygote_restarts_cold_when_its_warm_up_starts_a_thread(problem1):
    """Forking a process that runs other threads is unsafe: if a JAX release ever starts
    one while the zygote warms up, the zygote must re-exec itself without the warm-up."""
    from grader.sandbox import wire
    from grader.sandbox.env import child_env
    from grader.sandbox.host import Sandbox

    script = ("import threading, time\nfrom grader.sandbox import zygote\n"
              "zygote._warm_tracing = lambda: threading.Thread(target=time.sleep, args=(600,), daemon=True).start()\n"
              "zygote.main()\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=child_env(), start_new_session=True)
    sandbox = Sandbox()
    try:
        header, _ = wire.read_frame(proc.stdout, 1 << 20)
        assert header["type"] == "ready"
        environ = open(f"/proc/{proc.pid}/environ", "rb").read().split(b"\0")
        assert b"JAXJUDGE_ZYGOTE_NO_WARM_UP=1" in environ  # it re-executed itself
        sandbox.proc = proc
        report = grade_source(problem1, GOOD, sandbox, problem1.public_cases()).report
        assert report.verdict == "AC"  # and its children run (no deadlock)
    finally:
        sandbox.close()


def _children(pid: int) -> list[int]:
    import os

    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            found += [int(c) for c in open(f"/proc/{pid}/task/{task}/children").read().split()]
        except OSError:
            pass
    return found


@pytest.mark.slow
def test_a_judge_that_goes_away_takes_the_running_child_with_it(problem1):
    """The judge closing its pipe mid-run (it died) ends the zygote and the child it runs,
    instead of leaving the child to spin until its CPU limit."""
    import os
    import time

    from grader.judge.request import make_request
    from grader.judge.submission import parse_source
    from grader.sandbox import wire
    from grader.sandbox.host import Sandbox

    spin = "import jax\n\ndef per_example_grad_clip(params, x, y, max_norm):\n    while True:\n        pass\n"
    sandbox = Sandbox()
    sandbox.start()
    import dataclasses

    # A long time limit: without the watch on the judge's pipe the zygote would wait it out.
    request = dataclasses.replace(make_request(parse_source(spin), problem1, problem1.public_cases()),
                                  time_seconds=600.0)
    header, blob = request.frame()
    wire.write_frame(sandbox.proc.stdin, header, blob)
    deadline, kids = time.monotonic() + 60, []
    while time.monotonic() < deadline and not kids:
        kids = _children(sandbox.proc.pid)
        time.sleep(0.05)
    assert kids, "the zygote never forked a child"
    sandbox.proc.stdin.close()
    sandbox.proc.wait(timeout=30)
    time.sleep(0.5)
    assert not [k for k in kids if os.path.exists(f"/proc/{k}") and
                open(f"/proc/{k}/stat").read().split(")")[1].split()[0] != "Z"]


SPIN = "import jax\n\ndef per_example_grad_clip(params, x, y, max_norm):\n    while True:\n        pass\n"


def _state(pid: int) -> str | None:
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None  # gone


def _zygote(patch: str = "", stderr=subprocess.DEVNULL):
    """A Sandbox on a zygote started here, after ``patch`` (Python run before ``zygote.main``)."""
    from grader.sandbox import wire
    from grader.sandbox.env import child_env
    from grader.sandbox.host import Sandbox

    proc = subprocess.Popen([sys.executable, "-c", f"from grader.sandbox import zygote\n{patch}\nzygote.main()\n"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=child_env(),
                            start_new_session=True)
    header, _ = wire.read_frame(proc.stdout, 1 << 20)
    assert header["type"] == "ready"
    sandbox = Sandbox()
    sandbox.proc = proc
    return sandbox


def _spin_until_the_case_runs(problem1, sandbox) -> int:
    """Send SPIN with a long time limit, read frames until its first case has begun (the
    lockdown is behind it, submission code is running); returns the child's pid."""
    import dataclasses

    from grader.judge.request import make_request
    from grader.judge.submission import parse_source
    from grader.sandbox import wire

    request = dataclasses.replace(make_request(parse_source(SPIN), problem1, problem1.public_cases()),
                                  time_seconds=600.0)
    header, blob = request.frame()
    wire.write_frame(sandbox.proc.stdin, header, blob)
    while True:
        frame, _ = wire.read_frame(sandbox.proc.stdout, 1 << 20)
        assert frame["type"] != "exit", frame
        if frame["type"] == "begin" and frame.get("phase") == "case":
            break
    kids = [k for k in _children(sandbox.proc.pid) if _state(k) not in (None, "Z")]
    assert len(kids) == 1, kids
    return kids[0]


def test_the_child_runs_submission_code_with_stdio_on_dev_null(problem1, tmp_path):
    # The zygote's own stdin is the judge's request pipe and its stdout/stderr go to a file
    # here: a child that kept them could read the judge's requests or write where we look.
    with open(tmp_path / "zygote.err", "w") as err:
        sandbox = _zygote(stderr=err)
    try:
        kid = _spin_until_the_case_runs(problem1, sandbox)
        zygote_stdio = [os.readlink(f"/proc/{sandbox.proc.pid}/fd/{fd}") for fd in (0, 1, 2)]
        child_stdio = [os.readlink(f"/proc/{kid}/fd/{fd}") for fd in (0, 1, 2)]
    finally:
        sandbox.close()
    assert zygote_stdio[0].startswith("pipe:") and zygote_stdio[1:] == [str(tmp_path / "zygote.err")] * 2
    assert child_stdio == ["/dev/null"] * 3, child_stdio


@pytest.mark.slow
def test_a_zygote_killed_outright_takes_its_running_child_with_it(problem1):
    """SIGKILL leaves the zygote no chance to kill the child itself: PR_SET_PDEATHSIG
    makes the kernel do it, instead of the child spinning on, unobserved, to its CPU limit."""
    import signal
    import time

    sandbox = _zygote()
    try:
        kid = _spin_until_the_case_runs(problem1, sandbox)
        os.kill(sandbox.proc.pid, signal.SIGKILL)
        sandbox.proc.wait(timeout=30)
        deadline = time.monotonic() + 5
        while _state(kid) not in (None, "Z") and time.monotonic() < deadline:
            time.sleep(0.05)
        alive = _state(kid) not in (None, "Z")
        if alive:
            os.kill(kid, signal.SIGKILL)  # it would spin on to its CPU limit
    finally:
        sandbox.close()
    assert not alive, f"child {kid} still ran 5 s after its zygote died"


@pytest.mark.slow
def test_each_run_forks_a_new_child_and_reaps_the_last_before(problem1):
    import time
    from concurrent.futures import ThreadPoolExecutor

    from grader.judge.request import make_request
    from grader.judge.submission import parse_source

    sandbox = _zygote()
    forked: list[list[int]] = []  # per run: the zygote's children that were not there before it
    first_when_second_forked = "not seen"
    try:
        with ThreadPoolExecutor(1) as worker:
            for _ in range(2):
                request = make_request(parse_source(GOOD), problem1, problem1.public_cases())
                before = set(_children(sandbox.proc.pid))  # the last run's child may still be exiting
                running = worker.submit(sandbox.run, request)
                new: list[int] = []
                while not running.done():
                    for kid in _children(sandbox.proc.pid):
                        if kid not in before and kid not in new:
                            new.append(kid)
                            if forked:
                                first_when_second_forked = _state(forked[0][0])
                    time.sleep(0.005)
                assert running.result().complete and running.result().judge_error is None
                forked.append(new)
        zygote = sandbox.proc.pid
    finally:
        sandbox.close()
    assert [len(f) for f in forked] == [1, 1], forked  # one child per run
    (first,), (second,) = forked
    assert len({first, second, zygote}) == 3, (first, second, zygote)
    assert first_when_second_forked is None  # reaped before the second fork: never kept for reuse


@pytest.mark.slow
def test_zygote_kills_a_child_whose_frame_exceeds_the_output_cap(problem1):
    """The child's own Packer stops a large result first, so the zygote's cap is the one a
    child that got past it meets: a fake child here sends one frame of exactly the cap, then
    one of a byte more, each announced in its header and then written out in full."""
    from grader.judge.request import make_request
    from grader.judge.submission import parse_source

    def flood(excess: int) -> str:
        return f"""
import json, os, struct
from grader.sandbox import frames, wire
import grader.sandbox.child.main as child

def flood(job, blob, w):
    try:
        size = frames.output_cap(job.output_bytes) + {excess}
        # A well-formed case frame (of a case the job did not name) whose blob is mostly unused.
        head = json.dumps({{"type": "case", "case": "flood", "status": "ok", "args": {{"t": "none"}},
                           "output": {{"t": "array", "cls": "numpy", "dtype": "uint8", "shape": [0], "off": 0,
                                      "n": 0}}}}).encode()
        with os.fdopen(w, "wb") as out:
            out.write(struct.pack(">4sIQ", wire.MAGIC, len(head), size - len(head)) + head + bytes(size - len(head)))
    finally:
        os._exit(0)

child.main = flood
"""

    request = make_request(parse_source(GOOD), problem1, problem1.public_cases())
    exits = {}
    for excess in (0, 1):
        with _zygote(flood(excess)) as sandbox:
            exits[excess] = sandbox.run(request).exit
    assert exits[0]["killed"] is None and exits[0]["code"] == 0, exits[0]  # relayed: the child exits by itself
    assert exits[1]["killed"] == "ole" and exits[1]["signal"] == 9, exits[1]


def test_a_layer_that_fails_half_way_ends_the_child_before_any_submission_code(problem1, pool, tmp_path,
                                                                               monkeypatch):
    """A readable path that is a symlink loop: Landlock's rule for it fails with ELOOP after
    the fds, the namespaces and the rlimits are in place. The child must exit 70 (IE)
    without loading the submission, not carry on with Landlock missing."""
    import dataclasses

    from grader.judge import pipeline
    from grader.judge.submission import parse_source
    from grader.sandbox.request import Request

    loop = tmp_path / "loop"
    loop.symlink_to(loop)

    class WithLoop(Request):  # a subclass, since the pipeline replaces the request (for the probe)
        def frame(self) -> tuple[dict, bytes]:
            header, blob = super().frame()
            header["readable"] = [*header["readable"], str(loop)]
            return header, blob

    make_request = pipeline.make_request

    def broken(*args, **kwargs) -> Request:
        request = make_request(*args, **kwargs)
        return WithLoop(**{f.name: getattr(request, f.name) for f in dataclasses.fields(request)})

    monkeypatch.setattr(pipeline, "make_request", broken)
    sandbox = pool.take()
    try:
        graded = pipeline.grade(problem1, parse_source(GOOD, "<test>"), sandbox, problem1.public_cases())
    finally:
        pool.give(sandbox)
    assert graded.report.verdict == "IE", graded.report
    run = graded.run
    assert run.exit["code"] == 70 and run.exit["killed"] is None, run.exit
    assert run.layers == [] and run.load_status == "not_run", run  # no hello, no module load
    assert run.judge_error == "the sandboxed child failed before running the submission"


def test_a_child_cannot_forge_the_zygotes_exit_and_a_malformed_frame_ends_the_run(problem1):
    """The zygote relays only the kinds a child sends: a child claiming to have exited
    cleanly is killed (``protocol``), and what it claimed never reaches the judge. A frame
    of a child kind but the wrong shape is refused by the host: the judge's error, as any
    broken frame, and the sandbox is started afresh."""
    from grader.judge.request import make_request
    from grader.judge.submission import parse_source

    fake = """
import os
from grader.sandbox import wire
import grader.sandbox.child.main as child

def fake(job, blob, w):
    try:
        with os.fdopen(w, "wb") as out:
            if job.source.startswith("# forge"):
                wire.write_frame(out, {"type": "exit", "killed": None, "phase": "done", "code": 0, "signal": None,
                                       "wall_s": 0.0})
                os.kill(os.getpid(), 19)  # stop: only the zygote's kill ends it now
            wire.write_frame(out, {"type": "hello", "layers": ["fds"], "unavailable": {}})
            wire.write_frame(out, {"type": "runtime", "calls": {"jax.grad": ["3"]}, "nests": [], "overflow": False,
                                   "jit": {"mode": "jit"}})
    finally:
        os._exit(0)

child.main = fake
"""
    with _zygote(fake) as sandbox:
        forged = sandbox.run(make_request(parse_source("# forge\n" + GOOD), problem1, problem1.public_cases()))
        assert forged.exit["killed"] == "protocol" and forged.exit["signal"] == 9, forged.exit
        assert forged.judge_error is None and not forged.complete
        malformed = sandbox.run(make_request(parse_source(GOOD), problem1, problem1.public_cases()))
        assert malformed.judge_error is not None and malformed.judge_error.startswith("the sandbox failed: ")
        assert malformed.runtime is None and sandbox.proc is None  # closed: the next run starts a fresh zygote


@pytest.mark.slow  # two zygote starts: about 10 s
def test_stop_ends_a_run_in_progress_at_once_and_the_next_run_starts_a_new_zygote(problem1):
    """What a server's warming does when a grade comes: the run ends as the judge's error
    within a second, its child with it, and the sandbox grades again afterwards."""
    import dataclasses
    import threading
    import time

    from grader.judge.request import make_request
    from grader.judge.submission import parse_source
    from grader.sandbox.host import Sandbox

    sandbox = Sandbox()
    try:
        sandbox.start()
        zygote = sandbox.proc.pid
        request = dataclasses.replace(make_request(parse_source(SPIN), problem1, problem1.public_cases()),
                                      time_seconds=600.0)
        results = []
        runner = threading.Thread(target=lambda: results.append(sandbox.run(request)))
        runner.start()
        deadline = time.monotonic() + 60
        while not [k for k in _children(zygote) if _state(k) not in (None, "Z")] and time.monotonic() < deadline:
            time.sleep(0.05)
        kids = _children(zygote)
        stopped = time.monotonic()
        sandbox.stop()
        runner.join(5)
        assert not runner.is_alive() and time.monotonic() - stopped < 1.0
        assert results[0].judge_error and "the sandbox failed" in results[0].judge_error
        while any(_state(k) not in (None, "Z") for k in kids) and time.monotonic() - stopped < 0.5:
            time.sleep(0.05)
        assert kids and all(_state(k) in (None, "Z") for k in kids)  # its child ended with it, in half a second
        again = grade_source(problem1, GOOD, sandbox, problem1.public_cases()).report
        assert again.verdict == "AC" and sandbox.proc.pid != zygote
    finally:
        sandbox.close()
