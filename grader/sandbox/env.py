"""The environment of every process that compiles for grading (the zygote and its
children, the cache filler): the same XLA flags, so that compiled programs and
cache keys agree."""
from __future__ import annotations

import importlib.util
import os
import site
import sys
import sysconfig
from pathlib import Path

# The CPU compiler's older (non-MLIR) fusion emitters compile the small programs a grade
# is made of in about half the time; per submission of per_example_grad_clipping (39 cases,
# 8 shapes, dependence probe) the child's run fell from 3.9 s to 2.7 s, and every verdict,
# validate check and largest error stayed the same (see bench/). One code-generation thread
# instead of a split into 32 parallel parts, and LLVM without its most expensive passes, cut
# the compile's CPU time by about a fifth (it is a batch worker's share of the machine, not
# its wall time alone, that counts); every reference output of every problem stayed the
# same bit for bit. (LLVM -O0 would save more, but changes results in the last bits.)
# XLA aborts the process on a flag it does not know, so these go only to the jaxlib
# releases they were checked on.
FAST_COMPILE = ("--xla_cpu_use_fusion_emitters=false --xla_cpu_parallel_codegen_split_count=1 "
                "--xla_llvm_disable_expensive_passes=true")
FAST_COMPILE_CHECKED = ("0.10.",)


def default_xla_flags() -> str:
    from importlib.metadata import PackageNotFoundError, version

    flags = "--xla_cpu_multi_thread_eigen=false"  # one compute thread: the child has one core's share
    try:
        jaxlib = version("jaxlib")
    except PackageNotFoundError:
        return flags
    return f"{flags} {FAST_COMPILE}" if jaxlib.startswith(FAST_COMPILE_CHECKED) else flags


def _package_root() -> str:
    return str(Path(__file__).resolve().parent.parent.parent)


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_package_root(), env.get("PYTHONPATH")) if p)
    env.setdefault("JAX_PLATFORMS", "cpu")
    env.setdefault("XLA_FLAGS", default_xla_flags())
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    return env


# Measured with jax 0.10.2 on CPU: std::random_device in XLA needs /dev/urandom and
# XNNPACK's cpuinfo needs /proc/cpuinfo (else some ops fail with "YNNPACK operation
# failed"); /sys/devices/system/cpu is the CPU topology source and lib dirs serve any
# late dlopen. Other probes (/sys/bus/pci for TPUs, libtpu.so) fail harmlessly.
_SYSTEM_PATHS = ("/usr/lib", "/usr/lib64", "/lib", "/lib64", "/etc/ld.so.cache",
                 "/sys/devices/system/cpu", "/proc/cpuinfo", "/dev/urandom")


def default_readable_paths() -> list[str]:
    """Paths JAX/numpy/Python need, excluding the working directory and project files."""
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    sites = set(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        sites.add(site.getusersitepackages())
    sites.update(sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib"))
    modules = set()
    for name in ("jax", "jaxlib", "numpy", "ml_dtypes"):
        spec = importlib.util.find_spec(name)  # locates the package without importing it
        if spec is not None and spec.submodule_search_locations:
            modules.update(spec.submodule_search_locations)
    trusted = [os.path.realpath(p) for p in prefixes | sites]
    cwd = os.path.realpath(os.getcwd())

    def beneath(path: str, root: str) -> bool:
        return path == root or path.startswith(root.rstrip("/") + "/")

    kept: list[str] = []
    for raw in [*sorted(prefixes), *sorted(sites), *sorted(modules), *_SYSTEM_PATHS]:
        path = os.path.realpath(raw)
        if path == "/" or beneath(cwd, path) or not os.path.exists(path):
            continue  # a rule on cwd or an ancestor would expose the project being judged
        if beneath(path, "/work") and not any(beneath(path, t) for t in trusted):
            continue
        kept.append(path)
    kept = list(dict.fromkeys(kept))
    kept = [p for p in kept if not any(q != p and beneath(p, q) for q in kept)]
    return _carve(kept, [p for p in problem_data_paths() if any(beneath(p, k) for k in kept)])


def problem_data_paths() -> list[str]:
    """Folders of problem data a child must never read, though they may lie beneath a
    path it must: the catalogue and wrong answers a wheel installs inside the package
    (under site-packages), and the author folders named in ``JAXJUDGE_PROBLEMS``."""
    package = Path(__file__).resolve().parent.parent
    found = [package / "catalogue", package / "submissions"]
    found += [Path(p) for p in os.environ.get("JAXJUDGE_PROBLEMS", "").split(os.pathsep) if p]
    return [os.path.realpath(p) for p in found if p.exists()]


def _carve(kept: list[str], hidden: list[str]) -> list[str]:
    """``kept`` with every folder in ``hidden`` left out. Landlock can only allow, so a
    kept folder above a hidden one is replaced by its entries, down the path to it."""
    def beneath(path: str, root: str) -> bool:
        return path == root or path.startswith(root.rstrip("/") + "/")

    out: list[str] = []
    for root in kept:
        inner = [h for h in hidden if beneath(h, root)]
        if not inner:
            out.append(root)
        elif root not in inner:
            try:
                entries = sorted(os.path.join(root, e) for e in os.listdir(root))
            except OSError:
                continue
            out.extend(_carve(entries, inner))
    return out
