"""Grading speed, measured side by side in one run; prints ratios, not verdicts.

    python3 bench/grading_speed.py [--problem ID] [--files GLOB] [--repeat R] [--baseline DIR]
                                   [--phases]

(a) cold: one `grader grade` process per file, in a loop;
(b) batch: one `grader batch --workers 2` over the same files;
(c) floor F: one bare Python process that has imported jax loads each file, jits its
    entry and runs it on every case, compiles included, with no sandbox and no checks
    (a file that cannot be traced runs eagerly, as the judge runs it); per file, on one
    core. F_x is the same with the XLA flags the judge gives its children (the same
    compiler as the judge's: what is left between F_x and a grade is the judge's own
    cost). Also the time of `python -c "import jax"`.
(d) with ``--phases``: where one grade's time goes, per phase, summed over the files
    (each graded in this process with one sandbox; see ``Graded.seconds``).

Goals (issue 27): batch per file x workers / F <= 1.1; cold per file / batch per file
>= 5; single grade <= 1.5 x (import jax + F). The ratios over F_x have no goal yet.

With ``--baseline DIR`` (another checkout of the judge, e.g. a ``git worktree`` of an
older commit), every round also times the same cold grades and batch with that
checkout, interleaved, and prints this checkout's times over the baseline's.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import header

ROOT = Path(__file__).resolve().parent.parent

FLOOR = r"""
import glob, json, sys, time
import numpy as np
import jax

def case_args(path, args):
    data = np.load(path)
    values = {}
    for key in data.files:
        *outer, last = key.split("/")
        slot = values
        for part in outer:
            slot = slot.setdefault(part, {})
        arr = data[key]
        slot[last] = arr.item() if key.startswith("scalar:") else jax.device_put(arr)
    tidy = lambda v: {k.removeprefix("scalar:"): tidy(x) for k, x in v.items()} if isinstance(v, dict) else v
    values = tidy(values)
    return [values[a] for a in args]

cases, entry, args = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
inputs = [case_args(p, args) for p in sorted(glob.glob(cases + "/*.npz"))]
per_file = []
for path in sys.argv[4:]:
    start = time.perf_counter()
    try:
        scope = {"__name__": "submission"}
        exec(compile(open(path).read(), path, "exec"), scope)
        fn = scope[entry]
        jitted = jax.jit(fn)
        for call in inputs:
            try:
                jax.block_until_ready(jitted(*call))
            except Exception:  # what cannot be traced runs eagerly, as the judge runs it
                try:
                    jax.block_until_ready(fn(*call))
                except Exception:
                    pass
    except Exception:
        pass
    per_file.append(time.perf_counter() - start)
print(json.dumps(per_file))
"""


def write_floor_inputs(problem, folder: Path, cases=None) -> None:
    """Every case's (or ``cases``') typed input as one .npz (keys are dotted input paths), for the floor."""
    import numpy as np

    from grader.problem.inputs import JaxInput, typed_input

    def flat(tree, prefix=""):
        for key, value in tree.items():
            if isinstance(value, dict):
                yield from flat(value, f"{prefix}{key}/")
            elif isinstance(value, JaxInput):
                yield f"{prefix}{key}", value.array
            else:
                yield f"{prefix}scalar:{key}", np.asarray(value)

    for i, case in enumerate(problem.cases if cases is None else cases):
        np.savez(folder / f"{i:03d}.npz", **dict(flat(typed_input(problem.meta, case.input))))


def write_sources(files: list[str], folder: Path) -> list[str]:
    """Each submission's Python source (a notebook's code cells joined) as a .py file."""
    from grader.judge.submission import load_submission

    out = []
    for i, f in enumerate(files):
        path = folder / f"{i:03d}.py"
        path.write_text(load_submission(f).source)
        out.append(str(path))
    return out


def print_phases(problem, files: list[str]) -> float:
    """Where one grade's time goes: every file graded once in this process with one warm
    sandbox (after one grade that warms it), without feedback, as a batch worker grades."""
    from grader.judge.pipeline import grade
    from grader.judge.submission import load_submission
    from grader.sandbox.host import Sandbox

    judge: dict[str, float] = {}
    child: dict[str, float] = {}
    compile_s = run_s = 0.0
    with Sandbox() as sandbox:
        grade(problem, load_submission(files[0]), sandbox)
        for f in files:
            graded = grade(problem, load_submission(f), sandbox)
            for k, v in graded.seconds.items():
                judge[k] = judge.get(k, 0.0) + v
            if graded.run is not None:
                for k, v in graded.run.seconds.items():
                    child[k] = child.get(k, 0.0) + v
                costs = [c.cost for c in graded.run.cases.values() if c.cost]
                compile_s += sum(c.compile_ms for c in costs if c) / 1000
                run_s += sum(c.run_ms for c in costs if c) / 1000
    n, total = len(files), sum(judge.values())
    print(f"phases of one grade (one sandbox, in process, no feedback): {total / n:.3f} s per file")
    print("  judge's stages                    s/file   share")
    for k, v in judge.items():
        print(f"    {k:30s} {v / n:7.3f}  {v / total:6.1%}")
    print("  the sandbox's run, by the child's phase (timed in the judge)")
    for k, v in child.items():
        print(f"    {k:30s} {v / n:7.3f}  {v / total:6.1%}")
    print("  the cases that ran under jit, timed in the child")
    print(f"    {'trace + lower + compile':30s} {compile_s / n:7.3f}  {compile_s / total:6.1%}")
    print(f"    {'run':30s} {run_s / n:7.3f}  {run_s / total:6.1%}")
    return total / n


def floor_envs() -> dict[str, dict[str, str]]:
    """The floor's environments: ``floor`` with JAX's own XLA flags, as a learner's
    ``jax.jit`` runs, and ``floor_x`` with the flags the judge gives its children."""
    from grader.sandbox.env import child_env

    bare = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    bare["JAX_PLATFORMS"] = "cpu"
    return {"floor": bare, "floor_x": dict(bare, XLA_FLAGS=child_env()["XLA_FLAGS"])}


def floor_seconds(problem, cases_dir: Path, sources: list[str], env: dict[str, str]) -> list[float]:
    """Per source, in one bare process pinned to one core: load it, jit its entry and run
    it on every case in ``cases_dir`` (see ``write_floor_inputs``), compiles included."""
    one_core = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    floor = [*one_core, sys.executable, "-c", FLOOR, str(cases_dir), problem.meta.entry.name,
             ",".join(problem.meta.entry.args), *sources]
    out = subprocess.run(floor, capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def timed(cmd: list[str], ok: tuple[int, ...] = (0, 1), cwd: Path = ROOT) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    if done.returncode not in ok:
        sys.exit(f"failed ({done.returncode}): {' '.join(cmd)}\n{done.stderr[-2000:]}")
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problem", default="per_example_grad_clipping")
    ap.add_argument("--files", default=None, help="glob of submissions (default: accepted + wrong_answer, "
                                                   "without the adversarial files)")
    ap.add_argument("--with-attacks", action="store_true",
                    help="keep the adversarial files (header '# attack:') in the default selection")
    ap.add_argument("--repeat", type=int, default=3, help="rounds; medians are reported")
    ap.add_argument("--baseline", type=Path, default=None, help="another checkout to time side by side")
    ap.add_argument("--phases", action="store_true", help="also print where one grade's time goes, per phase")
    header.add_save_option(ap)
    opts = ap.parse_args()
    header.start(opts)
    sys.path.insert(0, str(ROOT))
    from grader.problem import load_problem

    problem = load_problem(ROOT / "problems" / opts.problem)
    if opts.files:
        files = sorted(str(p) for p in ROOT.glob(opts.files))
    else:
        # A class's submissions, by default: the attack corpus is built to be slow (eager
        # fallbacks, huge outputs) and would measure the attacks, not the judge; the other
        # folders' files hang, crash or never load, and the floor cannot run them.
        files = sorted(str(p) for folder in ("accepted", "wrong_answer", "rejected")
                       for p in (ROOT / "submissions" / opts.problem / folder).glob("*.py")
                       if opts.with_attacks or "\n# attack:" not in "\n" + p.read_text())
    if not files:
        sys.exit("no submission files to time")
    grader = [sys.executable, "-m", "grader"]
    rounds: dict[str, list[float]] = {k: [] for k in ("cold", "batch", "single", "floor", "floor_x", "import",
                                                      "base_cold", "base_batch")}
    scratch = tempfile.TemporaryDirectory()
    floor_cases, floor_sources = Path(scratch.name) / "cases", Path(scratch.name) / "sources"
    floor_cases.mkdir()
    floor_sources.mkdir()
    write_floor_inputs(problem, floor_cases)
    sources = write_sources(files, floor_sources)
    envs = floor_envs()
    for _ in range(opts.repeat):
        rounds["import"].append(timed([sys.executable, "-c", "import jax"], ok=(0,)))
        for key, env in envs.items():
            per_file = floor_seconds(problem, floor_cases, sources, env)
            rounds[key].append(sum(per_file) / len(per_file))
        # Feedback (hints, counterexamples) is off in both: this times the grading machinery.
        cold = [timed([*grader, "grade", f, "--problem", opts.problem, "--format", "json", "--no-feedback"])
                for f in files]
        rounds["cold"].append(sum(cold) / len(files))
        rounds["single"].append(statistics.median(cold))
        if opts.baseline:
            base = [timed([*grader, "grade", f, "--problem", opts.problem, "--format", "json", "--no-feedback"],
                          cwd=opts.baseline) for f in files]
            rounds["base_cold"].append(sum(base) / len(files))
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            for i, f in enumerate(files):
                (folder / f"{i:03d}_{Path(f).name}").write_bytes(Path(f).read_bytes())
            batch = [*grader, "batch", str(folder), "--problem", opts.problem, "--workers", "2", "--no-feedback"]
            rounds["batch"].append(timed(batch, ok=(0,)) / len(files))
            if opts.baseline:
                rounds["base_batch"].append(timed(batch, ok=(0,), cwd=opts.baseline) / len(files))
    rounds = {k: v for k, v in rounds.items() if v}
    m = {k: statistics.median(v) for k, v in rounds.items()}
    print(f"problem {opts.problem}: {len(files)} files, {len(problem.cases)} cases each, {opts.repeat} round(s), "
          "medians")
    print(f"  import jax                 {m['import']:.2f} s")
    print(f"  floor F per file           {m['floor']:.2f} s   (bare jit of each file, one core)")
    print(f"  floor F_x per file         {m['floor_x']:.2f} s   (the same with the judge's XLA flags)")
    print(f"  cold grade per file        {m['cold']:.2f} s")
    print(f"  batch per file (2 workers) {m['batch']:.2f} s")
    print("ratios")
    print(f"  batch per file x 2 workers / F           {2 * m['batch'] / m['floor']:.2f}   (goal <= 1.1)")
    print(f"  batch per file x 2 workers / F_x         {2 * m['batch'] / m['floor_x']:.2f}")
    print(f"  cold per file / batch per file           {m['cold'] / m['batch']:.2f}   (goal >= 5)")
    print(f"  single grade / (import jax + F)          {m['single'] / (m['import'] + m['floor']):.2f}   (goal <= 1.5)")
    if opts.baseline:
        print(f"against the baseline {opts.baseline} (same files, interleaved)")
        print(f"  cold grade per file        {m['cold']:.2f} s vs {m['base_cold']:.2f} s   "
              f"ratio {m['cold'] / m['base_cold']:.2f}")
        print(f"  batch per file (2 workers) {m['batch']:.2f} s vs {m['base_batch']:.2f} s   "
              f"ratio {m['batch'] / m['base_batch']:.2f}")
    if opts.phases:
        in_process = print_phases(problem, files)
        print(f"  one grade in process / F_x               {in_process / m['floor_x']:.2f}")
    print(json.dumps({k: round(v, 3) for k, v in m.items()}))
    scratch.cleanup()
    header.save(opts)


if __name__ == "__main__":
    main()
