"""How long the tests take: the inner loop, the judge's own loop and, with --ci, every
step of CI (.ci/run), one after the other in one run on this machine.

    python3 bench/test_loop.py [--ci] [--save docs/pages/performance/test_loop.txt]

Each command runs as a whole process (two pytest workers, as the README says); its wall
time and the tests it ran are printed beside the goal. With --ci: ruff, mypy, the whole
suite, the documentation build and `grader validate --mutants` twice, on an empty proof
cache (what CI does on its fresh machine) and then with the proofs the first run kept.
Goals: the inner loop under 2 minutes, CI under 30.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import header

ROOT = header.ROOT
PY = sys.executable
INNER_GOAL, CI_GOAL = 120.0, 1800.0


def timed(name: str, cmd: list[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env, check=False)
    seconds = time.perf_counter() - start
    counts = re.findall(r"(\d+ (?:passed|failed|skipped|deselected|errors?))", done.stdout + done.stderr)
    status = "ok" if done.returncode == 0 else f"exit {done.returncode}"
    print(f"  {name:<44} {seconds:8.1f} s  {status:<8} {', '.join(counts)}", flush=True)
    if done.returncode != 0:
        print("    " + (done.stdout + done.stderr)[-1500:].replace("\n", "\n    "))
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ci", action="store_true", help="also time every step of .ci/run")
    header.add_save_option(ap)
    opts = ap.parse_args()
    header.start(opts)
    pytest = [PY, "-m", "pytest", "-n", "2", "-p", "no:cacheprovider", "-o", "addopts=-q --dist loadscope"]
    print("the loops (wall seconds, two pytest workers)")
    inner = timed('pytest -n 2 -m "not slow"', [*pytest, "-m", "not slow"])
    timed('pytest -n 2 -m "not slow and not service"', [*pytest, "-m", "not slow and not service"])
    print(f"  inner loop: {inner:.0f} s, goal {INNER_GOAL:.0f} s: {'met' if inner <= INNER_GOAL else 'NOT met'}")
    if opts.ci:
        print("\nCI's steps (.ci/run, after its install), in its order")
        env = dict(os.environ, JAXJUDGE_REQUIRE_ALL_LAYERS="1", JAXJUDGE_REQUIRE_POSTGRES="1",
                   JAXJUDGE_REQUIRE_BROWSER="1")
        total = timed("ruff check grader tests bench", [PY, "-m", "ruff", "check", "grader", "tests", "bench"])
        total += timed("mypy", [PY, "-m", "mypy"])
        total += timed("pytest -n 2 (every test)", [*pytest], env)
        total += timed("mkdocs build --strict", [PY, "-m", "mkdocs", "build", "--strict", "-f", "docs/mkdocs.yml"])
        with tempfile.TemporaryDirectory(prefix="jaxjudge-bench-cache-") as cache:
            fresh = dict(env, JAXJUDGE_CACHE=cache)  # CI's fresh machine: no proof kept, no table built
            total += timed("grader validate --mutants (fresh)", [PY, "-m", "grader", "validate", "--mutants"], fresh)
            timed("grader validate --mutants (proofs kept)", [PY, "-m", "grader", "validate", "--mutants"], fresh)
        print(f"  CI after its install: {total / 60:.1f} min, goal {CI_GOAL / 60:.0f} min: "
              f"{'met' if total <= CI_GOAL else 'NOT met'}")
    header.save(opts)


if __name__ == "__main__":
    main()
