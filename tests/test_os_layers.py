"""The child's OS layers (fds, netns, rlimits, Landlock, seccomp) hold on their own, with
no Python policy in front of them: a plain Python process calls ``apply_lockdown`` with
the readable paths the judge gives children, then tries with ``os``, ``socket`` and
``subprocess`` what a submission that escaped the policy would try.

A layer the machine cannot apply is reported by ``apply_lockdown`` as unavailable; its test
then skips, naming the reason, or fails when JAXJUDGE_REQUIRE_ALL_LAYERS=1 (CI sets it)."""
from __future__ import annotations

import ast
import errno
import json
import os
import signal
import socket
import subprocess
import sys

import pytest

from conftest import PROBLEMS, ROOT

HIDDEN_CASE = PROBLEMS / "per_example_grad_clipping" / "cases" / "hidden" / "gen_s2026_000.json"

PRELUDE = r'''
import json, os, resource, socket, subprocess, sys, threading

from grader.sandbox.child.lockdown import apply_lockdown
from grader.sandbox.env import default_readable_paths


def attempt(fn):
    try:
        value = fn()
    except OSError as exc:
        out = {"ok": False, "errno": exc.errno, "error": repr(exc)}
    except Exception as exc:
        out = {"ok": False, "errno": None, "error": repr(exc)}
    else:
        out = {"ok": True, "value": repr(value)[:300]}
    print(json.dumps(out), flush=True)


args = json.loads(sys.argv[1])
before = args.get("before")
if before:
    exec(before)
report = apply_lockdown(cpu_seconds=30, data_bytes=1 << 30, readable=default_readable_paths(), keep_fds=[1],
                        disabled=args["disabled"])
print(json.dumps({"active": list(report.active), "unavailable": report.unavailable}), flush=True)
'''


def run_locked(after: str, *, layers: tuple[str, ...], disabled: tuple[str, ...] = (), before: str = "",
               pass_fds: tuple[int, ...] = ()):
    """Run PRELUDE + ``after`` in a fresh interpreter from the project root (as the judge
    runs); returns the attempts' results and the exit status. ``layers`` must be active."""
    program = PRELUDE + after
    proc = subprocess.run([sys.executable, "-c", program, json.dumps({"disabled": list(disabled), "before": before})],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, pass_fds=pass_fds)
    lines = proc.stdout.splitlines()
    assert lines, f"no lockdown report (exit {proc.returncode}): {proc.stderr[-2000:]}"
    report = json.loads(lines[0])
    missing = {name: report["unavailable"][name] for name in layers if name in report["unavailable"]}
    if missing:
        why = "; ".join(f"{k}: {v}" for k, v in missing.items())
        if os.environ.get("JAXJUDGE_REQUIRE_ALL_LAYERS") == "1":
            pytest.fail(f"JAXJUDGE_REQUIRE_ALL_LAYERS=1 but a layer is unavailable: {why}")
        pytest.skip(f"layer unavailable on this machine: {why}")
    assert set(layers) <= set(report["active"]), report
    return [json.loads(line) for line in lines[1:]], proc.returncode


def test_landlock_refuses_reading_problem_files():
    assert HIDDEN_CASE.read_text()  # readable to the judge itself
    results, rc = run_locked(f"""
attempt(lambda: open({str(HIDDEN_CASE)!r}).read())
attempt(lambda: os.listdir({str(HIDDEN_CASE.parent)!r}))
attempt(lambda: open({str(ROOT / 'submissions' / 'per_example_grad_clipping' / 'accepted' / 'flat_norm.py')!r}).read())
attempt(lambda: open(os.path.join(sys.prefix, "lib", "python%d.%d" % sys.version_info[:2], "os.py")).read(10))
""", layers=("landlock",))
    assert rc == 0
    assert [r["errno"] for r in results[:3]] == [errno.EACCES] * 3, results
    assert results[3]["ok"], results  # the Python installation stays readable


def test_landlock_refuses_writing_anywhere(tmp_path):
    targets = [tmp_path / "written.txt", ROOT / "written_by_child.txt", "/tmp/jaxjudge_os_layer_probe.txt",
               os.path.join(sys.prefix, "jaxjudge_probe.txt")]
    attempts = "\n".join(f"attempt(lambda: open({str(t)!r}, 'w').write('x'))" for t in targets)
    results, rc = run_locked(attempts + "\nattempt(lambda: os.mkdir('/tmp/jaxjudge_os_layer_dir'))",
                             layers=("landlock",))
    assert rc == 0
    assert [r["errno"] for r in results] == [errno.EACCES] * (len(targets) + 1), results
    assert not any(os.path.exists(t) for t in targets) and not os.path.exists("/tmp/jaxjudge_os_layer_dir")


def test_seccomp_kills_the_process_that_execs():
    results, rc = run_locked("os.execv('/bin/true', ['true'])\nprint('survived', flush=True)",
                             layers=("seccomp",))
    assert rc == -signal.SIGSYS and results == [], (rc, results)


def test_seccomp_refuses_fork_and_subprocess_but_not_threads():
    results, rc = run_locked("""
attempt(lambda: os.fork())
attempt(lambda: subprocess.run(['true']))
t = threading.Thread(target=lambda: None)
attempt(lambda: (t.start(), t.join()))
""", layers=("seccomp",))
    assert rc == 0
    assert results[0]["errno"] == errno.EPERM and results[1]["errno"] == errno.EPERM, results
    assert results[2]["ok"], results  # XLA needs threads; only new processes are refused


def test_seccomp_refuses_sockets():
    results, rc = run_locked("""
attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))
attempt(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
attempt(lambda: socket.socketpair())
""", layers=("seccomp",))
    assert rc == 0 and [r["errno"] for r in results] == [errno.EPERM] * 3, results


@pytest.fixture
def listening_port():
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    yield server.getsockname()[1]
    server.close()


CONNECT = """
def connect():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(("127.0.0.1", {port}))
    return "connected"
attempt(connect)
attempt(lambda: sum(1 for ln in open("/proc/net/route").read().splitlines()[1:] if ln.strip()))  # routes
"""


def test_network_namespace_has_no_route(listening_port):
    # Landlock and seccomp (which refuse sockets and TCP connect themselves) are off here, so
    # only the namespace stands between the child and the server the test listens on.
    results, rc = run_locked(CONNECT.format(port=listening_port), layers=("netns",),
                             disabled=("landlock", "seccomp"))
    assert rc == 0
    assert results[0]["errno"] in (errno.ENETUNREACH, errno.ECONNREFUSED, errno.EHOSTUNREACH), results
    assert results[1] == {"ok": True, "value": "0"}, results
    # Without the namespace the same program reaches the server: the test can fail.
    control, _ = run_locked(CONNECT.format(port=listening_port), layers=(),
                            disabled=("netns", "landlock", "seccomp"))
    assert control[0] == {"ok": True, "value": "'connected'"}, control
    with open("/proc/net/route") as f:
        host_routes = sum(1 for ln in f.read().splitlines()[1:] if ln.strip())
    assert control[1] == {"ok": True, "value": str(host_routes)}, control


def _landlock_abi() -> int:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc.syscall(ctypes.c_long(444), None, ctypes.c_long(0), ctypes.c_long(1))


def test_landlock_refuses_tcp_connect(listening_port):
    if _landlock_abi() < 4:
        pytest.skip(f"Landlock ABI {_landlock_abi()} has no network rules (needs 4)")
    results, rc = run_locked(CONNECT.format(port=listening_port), layers=("landlock",),
                             disabled=("netns", "seccomp"))
    assert rc == 0 and results[0]["errno"] == errno.EACCES, results


def test_lockdown_closes_inherited_fds():
    read_end, write_end = os.pipe()
    try:
        results, rc = run_locked(f"""
attempt(lambda: os.fstat({read_end}))
attempt(lambda: os.fstat(1))
""", layers=("fds",), before=f"os.fstat({read_end})", pass_fds=(read_end,))
    finally:
        os.close(read_end)
        os.close(write_end)
    assert rc == 0
    assert results[0]["errno"] == errno.EBADF and results[1]["ok"], results


def test_rlimits_are_set_and_cannot_be_raised():
    results, rc = run_locked("""
attempt(lambda: [resource.getrlimit(r) for r in (resource.RLIMIT_CPU, resource.RLIMIT_DATA, resource.RLIMIT_FSIZE,
                                                  resource.RLIMIT_NOFILE, resource.RLIMIT_CORE)])
attempt(lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (64, 4096)))
attempt(lambda: [os.open("/dev/urandom", os.O_RDONLY) for _ in range(100)])
""", layers=("rlimits",))
    assert rc == 0
    assert ast.literal_eval(results[0]["value"]) == [(30, 31), (1 << 30, 1 << 30), (0, 0), (64, 64), (0, 0)], results
    assert not results[1]["ok"] and "ValueError" in results[1]["error"], results  # raising a hard limit
    assert results[2]["errno"] == errno.EMFILE, results
