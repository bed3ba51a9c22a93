"""Sandbox properties beyond the corpus: isolation between submissions graded by one
zygote, reporting of unavailable layers, and the strict flag."""
import os
import subprocess
import sys

from conftest import ROOT, SUBMISSIONS, grade_source

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


def test_state_never_leaks_between_submissions(problem1, pool):
    box = pool.free.get()
    try:
        first = grade_source(problem1, POISONER, box).report
        second = grade_source(problem1, GOOD, box).report
    finally:
        pool.free.put(box)
    assert first.verdict == "RE"  # the tampering is refused outright
    assert second.verdict == "AC" and second.passed == second.total


def test_all_layers_active_here(problem1, pool):
    box = pool.free.get()
    try:
        report = grade_source(problem1, GOOD, box, problem1.public_cases()).report
    finally:
        pool.free.put(box)
    assert report.sandbox["layers"] == ["fds", "netns", "rlimits", "landlock", "seccomp"]


def run_cli(*args, env_extra):
    env = dict(os.environ, **env_extra)
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env=env)


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
    box = pool.free.get()
    try:
        relaxed = grade(problem1, parse_source(GOOD, "<test>"), box, problem1.public_cases())
        strict = grade(problem1, parse_source(GOOD, "<test>"), box, problem1.public_cases(), strict=True)
    finally:
        pool.free.put(box)
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

    box = pool.free.get()
    try:
        raised = grade_source(problem1, RAISES_ON_HIDDEN, box).report
        wrong = grade_source(problem1, WRONG_ON_HIDDEN, box, feedback=Feedback(counterexample=False)).report
    finally:
        pool.free.put(box)
    assert raised.verdict == "RE" and raised.message.endswith(": runtime error")
    assert "secret" not in json.dumps(raised.to_json())
    assert wrong.verdict == "WA" and wrong.message.endswith(": wrong value")
    hidden_x = [json.dumps(c.input["x"])[2:12] for c in problem1.cases if c.hidden and len(c.input["x"]) == 8]
    text = json.dumps(wrong.to_json())
    assert hidden_x and not any(x in text for x in hidden_x)


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
    box = Sandbox()
    try:
        header, _ = wire.read_frame(proc.stdout, 1 << 20)
        assert header["type"] == "ready"
        environ = open(f"/proc/{proc.pid}/environ", "rb").read().split(b"\0")
        assert b"JAXJUDGE_ZYGOTE_NO_WARM_UP=1" in environ  # it re-executed itself
        box.proc = proc
        report = grade_source(problem1, GOOD, box, problem1.public_cases()).report
        assert report.verdict == "AC"  # and its children run (no deadlock)
    finally:
        box.close()


def _children(pid: int) -> list[int]:
    import os

    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            found += [int(c) for c in open(f"/proc/{pid}/task/{task}/children").read().split()]
        except OSError:
            pass
    return found


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
    box = Sandbox()
    box.start()
    import dataclasses

    # A long time limit: without the watch on the judge's pipe the zygote would wait it out.
    request = dataclasses.replace(make_request(parse_source(spin), problem1, problem1.public_cases()),
                                  time_seconds=600.0)
    header, blob = request.frame()
    wire.write_frame(box.proc.stdin, header, blob)
    deadline, kids = time.monotonic() + 60, []
    while time.monotonic() < deadline and not kids:
        kids = _children(box.proc.pid)
        time.sleep(0.05)
    assert kids, "the zygote never forked a child"
    box.proc.stdin.close()
    box.proc.wait(timeout=30)
    time.sleep(0.5)
    assert not [k for k in kids if os.path.exists(f"/proc/{k}") and
                open(f"/proc/{k}/stat").read().split(")")[1].split()[0] != "Z"]
