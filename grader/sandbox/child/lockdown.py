"""Irreversible sandboxing of a freshly forked judge child before untrusted JAX code runs.

Must run while the child is still single-threaded (before any JAX computation starts XLA
threads): unshare(CLONE_NEWUSER) refuses multi-threaded callers, and Landlock/seccomp only
bind the calling thread and its future children.
"""
from __future__ import annotations

import ctypes
import errno
import os
import platform
import resource
import stat
import sys
from dataclasses import dataclass
from typing import Callable, Sequence

_LAYERS = ("fds", "netns", "rlimits", "landlock", "seccomp")


@dataclass(frozen=True)
class LockdownReport:
    active: tuple[str, ...]
    unavailable: dict[str, str]  # layer -> why it could not be applied


class _Unavailable(Exception):
    """The layer cannot be applied here; nothing of it was applied."""


def _libc() -> ctypes.CDLL:
    if not sys.platform.startswith("linux"):
        raise _Unavailable("not Linux")
    return ctypes.CDLL(None, use_errno=True)


def _close_fds(keep_fds: Sequence[int]) -> None:
    # The bound must cover fds above the soft limit (it may have been lowered after they
    # were opened); closerange uses close_range(2), so a large bound costs nothing.
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    keep = sorted({fd for fd in keep_fds if fd > 2})
    top = max([hard if 0 < hard < 1 << 24 else 1 << 20, *keep]) + 1
    low = 3
    for fd in keep + [top]:
        if fd > low:
            os.closerange(low, fd)
        low = fd + 1


_CLONE_NEWUSER, _CLONE_NEWNET = 0x10000000, 0x40000000


def _unshare_net() -> None:
    libc = _libc()
    attempts = [_CLONE_NEWUSER | _CLONE_NEWNET]
    if os.geteuid() == 0:  # root may create a netns without a userns (e.g. userns disabled)
        attempts.append(_CLONE_NEWNET)
    reasons = []
    for flags in attempts:
        if libc.unshare(ctypes.c_int(flags)) == 0:
            return
        reasons.append(os.strerror(ctypes.get_errno()))
    raise _Unavailable("unshare: " + "; ".join(reasons))


MAX_OPEN_FILES = 64


def _set_rlimits(cpu_seconds: int, data_bytes: int) -> None:
    wanted = [
        # hard = soft + 1, so that SIGKILL follows an ignored SIGXCPU
        (resource.RLIMIT_CPU, cpu_seconds, cpu_seconds + 1),
        # RLIMIT_DATA, not RLIMIT_AS: XLA reserves huge address ranges and aborts
        (resource.RLIMIT_DATA, data_bytes, data_bytes),
        (resource.RLIMIT_FSIZE, 0, 0),
        (resource.RLIMIT_NOFILE, MAX_OPEN_FILES, MAX_OPEN_FILES),
        (resource.RLIMIT_CORE, 0, 0),
    ]  # RLIMIT_NPROC is skipped: it is not enforced for root.
    for res, soft, hard in wanted:
        cur_hard = resource.getrlimit(res)[1]
        # Raising a hard limit needs CAP_SYS_RESOURCE, lost after the userns unshare.
        if cur_hard != resource.RLIM_INFINITY:
            hard = min(hard, cur_hard)
        resource.setrlimit(res, (min(soft, hard), hard))


# Landlock uapi constants (linux/landlock.h).
_LL_SYSCALLS = {"x86_64": (444, 445, 446), "aarch64": (444, 445, 446), "arm64": (444, 445, 446)}
_LL_READ_FILE, _LL_READ_DIR = 1 << 2, 1 << 3
_LL_REFER, _LL_TRUNCATE, _LL_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_LL_NET_TCP = (1 << 0) | (1 << 1)  # BIND_TCP | CONNECT_TCP
_LL_SCOPES = 1 | 2  # ABSTRACT_UNIX_SOCKET | SIGNAL
_PR_SET_NO_NEW_PRIVS, _PR_GET_SECCOMP = 38, 21


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1  # the kernel struct is __attribute__((packed))
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _landlock(readable: Sequence[str]) -> None:
    libc = _libc()
    nrs = _LL_SYSCALLS.get(platform.machine())
    if nrs is None:
        raise _Unavailable(f"unknown Landlock syscall numbers on {platform.machine()}")
    create, add_rule, restrict = nrs
    syscall = libc.syscall
    syscall.restype = ctypes.c_long
    lng = ctypes.c_long  # explicit width: syscall() is variadic and reads longs
    abi = syscall(lng(create), None, lng(0), lng(1))  # LANDLOCK_CREATE_RULESET_VERSION
    if abi < 0:
        raise _Unavailable("Landlock: " + os.strerror(ctypes.get_errno()))
    fs = (1 << 13) - 1  # the 13 ABI-1 rights, all handled so all are denied by default
    fs |= (_LL_REFER if abi >= 2 else 0) | (_LL_TRUNCATE if abi >= 3 else 0)
    fs |= _LL_IOCTL_DEV if abi >= 5 else 0
    attr = _RulesetAttr(fs, _LL_NET_TCP if abi >= 4 else 0, _LL_SCOPES if abi >= 6 else 0)
    size = 8 if abi < 4 else 16 if abi < 6 else 24  # older kernels reject unknown fields
    ruleset = syscall(lng(create), ctypes.byref(attr), lng(size), lng(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        for path in dict.fromkeys(readable):
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except (FileNotFoundError, NotADirectoryError):
                continue
            try:
                is_dir = stat.S_ISDIR(os.fstat(fd).st_mode)
                # Directory-only rights on a file rule are rejected with EINVAL.
                rule = _PathBeneath(_LL_READ_FILE | (_LL_READ_DIR if is_dir else 0), fd)
                if syscall(lng(add_rule), lng(ruleset), lng(1), ctypes.byref(rule), lng(0)):
                    raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, lng(1), lng(0), lng(0), lng(0)):
            raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS failed")
        if syscall(lng(restrict), lng(ruleset), lng(0)):
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)


_DENY = (
    "fork vfork socket socketpair connect bind listen accept accept4 process_vm_readv "
    "process_vm_writev mount umount2 pivot_root chroot unshare setns bpf perf_event_open "
    "keyctl add_key request_key init_module finit_module delete_module kexec_load "
    "kexec_file_load reboot swapon swapoff open_by_handle_at name_to_handle_at userfaultfd "
    "io_uring_setup personality fsopen fsmount fspick open_tree move_mount mount_setattr "
    "pidfd_getfd kcmp iopl ioperm"
).split()
_KILL = ("execve", "execveat", "ptrace")
_CLONE_THREAD = 0x00010000
# Namespace bits a thread-creating clone could still carry (CLONE_NEWNS..CLONE_NEWNET).
_CLONE_NS_BITS = (0x00020000, 0x00000080, 0x02000000, 0x04000000, 0x08000000, 0x10000000,
                  0x20000000, 0x40000000)


def _build_seccomp() -> Callable[[], None]:
    """Build the filter now, return its loader; the import must precede Landlock/seccomp
    because ctypes.util.find_library runs ldconfig in a subprocess and uses tempfiles."""
    libc = _libc()
    if libc.prctl(_PR_GET_SECCOMP, 0, 0, 0, 0) < 0:
        raise _Unavailable("kernel without seccomp: " + os.strerror(ctypes.get_errno()))
    try:
        import pyseccomp as sc
    except (ImportError, RuntimeError, OSError) as exc:  # RuntimeError: no libseccomp.so
        raise _Unavailable(f"pyseccomp/libseccomp: {exc}") from exc

    def known(name: str) -> bool:  # e.g. fork/vfork do not exist on aarch64
        return sc.resolve_syscall(sc.Arch.NATIVE, name) >= 0

    flt = sc.SyscallFilter(sc.ALLOW)
    eperm = sc.ERRNO(errno.EPERM)  # EPERM surfaces as a clean PermissionError in Python
    for name in _DENY:
        if known(name):
            flt.add_rule(eperm, name)
    for name in _KILL:
        flt.add_rule(sc.KILL_PROCESS, name)
    # XLA starts threads with clone; only new processes (no CLONE_THREAD) are refused.
    flt.add_rule(eperm, "clone", sc.Arg(0, sc.MASKED_EQ, _CLONE_THREAD, 0))
    for bit in _CLONE_NS_BITS:
        flt.add_rule(eperm, "clone", sc.Arg(0, sc.MASKED_EQ, bit, bit))
    # clone3 passes flags in a struct seccomp cannot inspect; ENOSYS makes glibc use clone.
    if known("clone3"):
        flt.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    return flt.load


def apply_lockdown(cpu_seconds: int, data_bytes: int, readable: Sequence[str], keep_fds: Sequence[int],
                   disabled: Sequence[str] = ()) -> LockdownReport:
    """Apply every layer in ``_LAYERS`` order; unavailable layers are reported, not raised.

    A layer that is available but fails part way raises, since the child is then in an
    unknown state and must not run untrusted code. ``disabled`` layers (an operator's
    choice, e.g. on a kernel where one misbehaves) are reported as unavailable.
    """
    active: list[str] = []
    unavailable: dict[str, str] = {name: "disabled by JAXJUDGE_DISABLE_LAYERS" for name in disabled
                                   if name in _LAYERS}
    try:
        load_seccomp = _build_seccomp()
    except _Unavailable as exc:
        unavailable["seccomp"] = str(exc)
        load_seccomp = None
    steps: dict[str, Callable[[], None]] = {
        "fds": lambda: _close_fds(keep_fds),
        "netns": _unshare_net,
        "rlimits": lambda: _set_rlimits(cpu_seconds, data_bytes),
        "landlock": lambda: _landlock(readable),
        "seccomp": load_seccomp or (lambda: None),
    }
    for name in _LAYERS:
        if name in unavailable:
            continue
        try:
            steps[name]()
        except _Unavailable as exc:
            unavailable[name] = str(exc)
        else:
            active.append(name)
    return LockdownReport(tuple(active), unavailable)
