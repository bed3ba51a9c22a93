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
import platform
import signal
import socket
import subprocess
import sys

import pytest

from support import PROBLEMS, ROOT

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
readable = args["readable"] if args["readable"] is not None else default_readable_paths()
report = apply_lockdown(cpu_seconds=30, data_bytes=1 << 30, readable=readable, keep_fds=[1], disabled=args["disabled"])
print(json.dumps({"active": list(report.active), "unavailable": report.unavailable}), flush=True)
'''


def run_locked(after: str, *, layers: tuple[str, ...], disabled: tuple[str, ...] = (), before: str = "",
               pass_fds: tuple[int, ...] = (), readable: list[str] | None = None):
    """Run PRELUDE + ``after`` in a fresh interpreter from the project root (as the judge
    runs); returns the attempts' results and the exit status. ``layers`` must be active.
    ``readable`` replaces ``default_readable_paths()`` (e.g. by what a real request carries)."""
    program = PRELUDE + after
    args = {"disabled": list(disabled), "before": before, "readable": readable}
    proc = subprocess.run([sys.executable, "-c", program, json.dumps(args)],
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
attempt(lambda: open({os.__file__!r}).read(10))
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


# Where the judge's caches live in each deployment: apart (as conftest sets them), a Gradescope
# image (XLA's cache inside the judge's own folder) and the default under $XDG_CACHE_HOME.
CACHE_LAYOUTS = {
    "apart": {"JAXJUDGE_CACHE": "judge", "JAXJUDGE_XLA_CACHE": "xla"},
    "gradescope": {"JAXJUDGE_CACHE": "jaxjudge-cache", "JAXJUDGE_XLA_CACHE": "jaxjudge-cache/xla"},
    "default": {"XDG_CACHE_HOME": "xdg"},
}


@pytest.mark.parametrize("layout", sorted(CACHE_LAYOUTS))
def test_landlock_refuses_reading_the_probe_table_the_hint_cache_and_the_shipped_tables(layout, problem1, tmp_path,
                                                                                          monkeypatch):
    from grader.judge import mistakes, probe_table, tables
    from grader.judge.request import make_request
    from grader.judge.submission import load_submission
    from grader.sandbox import xla_cache
    from grader.sandbox.request import RunResult

    for name in ("JAXJUDGE_CACHE", "JAXJUDGE_XLA_CACHE", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, folder in CACHE_LAYOUTS[layout].items():
        monkeypatch.setenv(name, str(tmp_path / folder))
    # Where a grade looks for them (the hint entry written by the judge's own writer).
    table = probe_table.path(problem1)
    table.parent.mkdir(parents=True)
    table.write_bytes(b"the factors")
    hinted = mistakes.wrong_answers(problem1)[0]
    mistakes.record(problem1, hinted, RunResult())
    hints = mistakes.entry_path(problem1, hinted)
    assert hints.is_file()
    xla = xla_cache.cache_dir()
    xla.mkdir(parents=True)
    (xla / "entry").write_bytes(b"x")
    # What a real request hands the child (XLA's cache included), not default_readable_paths():
    # a judge cache moved beneath any of these paths fails here.
    request = make_request(load_submission(problem1.reference_path), problem1, problem1.public_cases())
    readable = request.frame()[0]["readable"]
    assert str(xla) in readable
    shipped = tables.shipped_root()
    assert shipped is not None and (shipped / "manifest.json").is_file()
    program = f"""
attempt(lambda: open({str(table)!r}, 'rb').read(1))
attempt(lambda: open({str(hints)!r}).read(1))
attempt(lambda: os.listdir({str(table.parent.parent)!r}))
attempt(lambda: open({str(xla / 'entry')!r}, 'rb').read())
attempt(lambda: open({str(shipped / 'manifest.json')!r}).read(1))
"""
    results, rc = run_locked(program, layers=("landlock",), readable=readable)
    assert rc == 0
    assert [r["errno"] for r in results[:3]] == [errno.EACCES] * 3, results
    assert results[3] == {"ok": True, "value": "b'x'"}, results  # the one cache children do read
    assert results[4]["errno"] == errno.EACCES, results  # nor the tables the catalogue ships
    control, _ = run_locked(program, layers=(), disabled=("landlock",), readable=readable)
    assert all(r["ok"] for r in control), control  # it is Landlock that refuses, not file modes


SYSCALL = r'''
import ctypes

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def syscall(nr, *args):
    def call():
        ret = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
        if ret < 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        return ret
    return call
'''

# The kernel's own tables (arch/x86/entry/syscalls/syscall_64.tbl, asm-generic/unistd.h),
# not libseccomp's, which builds the filter under test.
SYSCALL_NUMBERS = {
    "x86_64": {"ptrace": 101, "execveat": 322, "clone": 56, "clone3": 435, "unshare": 272, "setns": 308,
               "mount": 165, "umount2": 166, "open_tree": 428, "chroot": 161, "bpf": 321, "perf_event_open": 298,
               "keyctl": 250, "add_key": 248, "request_key": 249, "init_module": 175, "finit_module": 313,
               "delete_module": 176, "kexec_load": 246, "kexec_file_load": 320, "userfaultfd": 323,
               "io_uring_setup": 425, "process_vm_readv": 310, "process_vm_writev": 311},
    "aarch64": {"ptrace": 117, "execveat": 281, "clone": 220, "clone3": 435, "unshare": 97, "setns": 268,
                "mount": 40, "umount2": 39, "open_tree": 428, "chroot": 51, "bpf": 280, "perf_event_open": 241,
                "keyctl": 219, "add_key": 217, "request_key": 218, "init_module": 105, "finit_module": 273,
                "delete_module": 106, "kexec_load": 104, "kexec_file_load": 294, "userfaultfd": 282,
                "io_uring_setup": 425, "process_vm_readv": 270, "process_vm_writev": 271},
}
CLONE_THREAD = 0x00010000
CLONE_NAMESPACES = {"newns": 0x00020000, "newtime": 0x00000080, "newcgroup": 0x02000000, "newuts": 0x04000000,
                    "newipc": 0x08000000, "newuser": 0x10000000, "newpid": 0x20000000, "newnet": 0x40000000}
_PRIVILEGED = "the kernel checks the caller's capability before the arguments, and this process lacks it"

# (id, syscall, arguments, why the bare kernel might refuse it with EPERM too). The arguments
# are chosen so that without the filter the kernel answers otherwise (it succeeds, or fails
# on them with EFAULT, EINVAL, EBADF...) and nothing happens to the host.
REFUSED = [
    # A thread clone (XLA's) that asks for a namespace; without CLONE_SIGHAND the kernel says EINVAL.
    *[(f"clone-thread-{ns}", "clone", f"{CLONE_THREAD | bit:#x}, 0, 0, 0, 0", None)
      for ns, bit in CLONE_NAMESPACES.items()],
    ("clone-process", "clone", "0x800, 0, 0, 0, 0", None),  # CLONE_SIGHAND without CLONE_VM: EINVAL
    ("clone3", "clone3", "0, 0", None),  # a zero size: EINVAL
    ("setns", "setns", "-1, 0", None),
    ("mount", "mount", "0, 1, 0, 0, 0", None),  # the target is a bad pointer
    ("umount2", "umount2", "1, 0", None),
    ("open_tree", "open_tree", "-100, 0, 0xdead0000", None),
    ("chroot", "chroot", "0", None),
    ("bpf", "bpf", "0, 1, 8", "older kernels check kernel.unprivileged_bpf_disabled first"),
    ("perf_event_open", "perf_event_open", "0, 0, -1, -1, 0", None),
    ("keyctl", "keyctl", "9999, 0, 0, 0, 0", None),
    ("add_key", "add_key", "0, 0, 0, 0, -3", None),
    ("request_key", "request_key", "0, 0, 0, 0", None),
    ("init_module", "init_module", "0, 0, 0", _PRIVILEGED),
    ("finit_module", "finit_module", "-1, 0, 0", _PRIVILEGED),
    ("delete_module", "delete_module", "0, 0", _PRIVILEGED),
    ("kexec_load", "kexec_load", "0, 0, 0, 0xdead0000", _PRIVILEGED),
    ("kexec_file_load", "kexec_file_load", "-1, -1, 0, 0, 0xdead0000", _PRIVILEGED),
    ("userfaultfd", "userfaultfd", "3", None),  # user-mode only (any user may), plus an unknown flag
    ("io_uring_setup", "io_uring_setup", "0, 0", "kernel.io_uring_disabled refuses it to this process"),
    ("process_vm_readv", "process_vm_readv", "os.getpid(), 0, 0, 0, 0, 0", None),
    ("process_vm_writev", "process_vm_writev", "os.getpid(), 0, 0, 0, 0, 0", None),
    # Last, as without the filter it succeeds and moves the process into new namespaces. One
    # call for all: any user may unshare the others along with a user namespace, once.
    ("unshare", "unshare", f"{sum(CLONE_NAMESPACES.values()):#x}", None),
]
LET_THROUGH = [("clone-thread", "clone", f"{CLONE_THREAD:#x}, 0, 0, 0, 0", None)]  # EINVAL either way


def _syscall_numbers() -> dict[str, int]:
    machine = platform.machine()
    if machine not in SYSCALL_NUMBERS:
        pytest.skip(f"no syscall numbers for {machine} in this test")
    return SYSCALL_NUMBERS[machine]


@pytest.fixture(scope="module")
def syscall_outcomes():
    """Every attempt of LET_THROUGH + REFUSED under the filter and without it. The network
    namespace is off in both runs, since it refuses some of these on its own (an unmapped
    uid cannot nest a user namespace, and capabilities are gone): only the filter differs."""
    nrs = _syscall_numbers()
    attempts = LET_THROUGH + REFUSED
    program = SYSCALL + "\n".join(f"attempt(syscall({nrs[name]}, {args}))" for _, name, args, _ in attempts)
    filtered, rc = run_locked(program, layers=("seccomp",), disabled=("netns",))
    assert rc == 0 and len(filtered) == len(attempts), (rc, filtered)
    control, rc = run_locked(program, layers=(), disabled=("netns", "seccomp"))
    assert rc == 0 and len(control) == len(attempts), (rc, control)
    ids = [a[0] for a in attempts]
    return dict(zip(ids, filtered)), dict(zip(ids, control))


@pytest.mark.parametrize("case, why_eperm", [(c[0], c[3]) for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_seccomp_refuses_syscall_the_bare_kernel_answers_otherwise(case, why_eperm, syscall_outcomes):
    filtered, control = syscall_outcomes
    # lockdown.py: ERRNO(EPERM) for every denied call; ENOSYS for clone3, so that glibc falls back to clone.
    assert filtered[case]["errno"] == (errno.ENOSYS if case == "clone3" else errno.EPERM), filtered[case]
    if control[case].get("errno") == errno.EPERM and why_eperm:
        pytest.skip(f"{case}: EPERM without the filter too ({why_eperm}), so this machine cannot tell them apart")
    assert control[case] != filtered[case], control[case]


def test_seccomp_lets_a_thread_clone_without_namespace_flags_through(syscall_outcomes):
    # The same EINVAL with and without the filter: the kernel, not the filter, answered.
    filtered, control = syscall_outcomes
    assert filtered["clone-thread"]["errno"] == control["clone-thread"]["errno"] == errno.EINVAL, filtered


@pytest.mark.parametrize("name, args, unfiltered", [
    ("ptrace", "2, 0, 0, 0", errno.ESRCH),  # PTRACE_PEEKDATA of pid 0
    ("execveat", "-100, 0, 0, 0, 0", errno.EFAULT),  # a NULL path: nothing is executed
], ids=["ptrace", "execveat"])
def test_seccomp_kills_the_process_that_calls(name, args, unfiltered):
    program = SYSCALL + f"attempt(syscall({_syscall_numbers()[name]}, {args}))"
    results, rc = run_locked(program, layers=("seccomp",))
    assert rc == -signal.SIGSYS and results == [], (rc, results)
    control, rc = run_locked(program, layers=(), disabled=("seccomp",))
    assert rc == 0 and control[0]["errno"] == unfiltered, control


BIND = """
def bind():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    return "bound"
attempt(bind)
"""


def test_landlock_refuses_tcp_bind():
    if _landlock_abi() < 4:
        pytest.skip(f"Landlock ABI {_landlock_abi()} has no network rules (needs 4)")
    # seccomp refuses bind itself: with it off, only Landlock stands in the way.
    results, rc = run_locked(BIND, layers=("landlock",), disabled=("seccomp",))
    assert rc == 0 and results[0]["errno"] == errno.EACCES, results
    control, _ = run_locked(BIND, layers=(), disabled=("seccomp", "landlock"))
    assert control == [{"ok": True, "value": "'bound'"}], control


def test_landlock_refuses_signals_to_processes_outside_the_child():
    if _landlock_abi() < 6:
        pytest.skip(f"Landlock ABI {_landlock_abi()} has no signal scoping (needs 6)")
    outsider = subprocess.Popen(["sleep", "120"])
    program = f"""
attempt(lambda: os.kill({outsider.pid}, 0))
attempt(lambda: os.kill(os.getppid(), 0))
attempt(lambda: os.kill(os.getpid(), 0))
"""
    try:
        results, rc = run_locked(program, layers=("landlock",))
        # The same user and namespaces in both runs: only Landlock's scope differs.
        control, _ = run_locked(program, layers=(), disabled=("landlock",))
    finally:
        outsider.kill()
        outsider.wait()
    assert rc == 0
    assert [r["errno"] for r in results[:2]] == [errno.EPERM] * 2 and results[2]["ok"], results  # itself: allowed
    assert all(r["ok"] for r in control), control
