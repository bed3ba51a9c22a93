"""Grading speed, measured side by side in one run; prints ratios, not verdicts.

    python3 bench/grading_speed.py [--problem ID] [--files GLOB] [--repeat R] [--baseline DIR]

(a) cold: one `grader grade` process per file, in a loop;
(b) batch: one `grader batch --workers 2` over the same files;
(c) floor F: one bare Python process that has imported jax runs the reference on
    every case once, compiles included, no sandbox (timed inside the process);
    also the time of `python -c "import jax"`.

Goals (issue 7): batch per file <= F; cold per file / batch per file >= 5;
single grade <= 1.5 x (import jax + F).

With ``--baseline DIR`` (another checkout of the judge, e.g. a ``git worktree`` of an
older commit), every round also times the same cold grades and batch with that
checkout, interleaved, and prints this checkout's times over the baseline's.
"""
from __future__ import annotations

import argparse
import json
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
import jax, jax.numpy as jnp
sys.path.insert(0, sys.argv[1])
import reference
cases = [json.load(open(p))["input"] for p in sorted(glob.glob(sys.argv[1] + "/cases/*/*.json"))]
fn = getattr(reference, sys.argv[2])
args = sys.argv[3].split(",")

def to_jax(v):
    if isinstance(v, dict):
        return {k: to_jax(x) for k, x in v.items()}
    if isinstance(v, list):
        return jnp.asarray(v)
    return v

start = time.perf_counter()
for case in cases:
    jax.block_until_ready(fn(*[to_jax(case[a]) for a in args]))
print(time.perf_counter() - start)
"""


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
        # fallbacks, huge outputs) and would measure the attacks, not the judge.
        files = sorted(str(p) for folder in ("accepted", "wrong_answer")
                       for p in (ROOT / "submissions" / opts.problem / folder).glob("*.py")
                       if opts.with_attacks or "\n# attack:" not in "\n" + p.read_text())
    if not files:
        sys.exit("no submission files to time")
    grader = [sys.executable, "-m", "grader"]
    rounds: dict[str, list[float]] = {k: [] for k in ("cold", "batch", "single", "floor", "import",
                                                      "base_cold", "base_batch")}
    for _ in range(opts.repeat):
        rounds["import"].append(timed([sys.executable, "-c", "import jax"], ok=(0,)))
        out = subprocess.run([sys.executable, "-c", FLOOR, str(problem.root), problem.meta.entry.name,
                              ",".join(problem.meta.entry.args)], capture_output=True, text=True, check=True)
        rounds["floor"].append(float(out.stdout.strip().splitlines()[-1]))
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
    print(f"  floor F (reference, cases) {m['floor']:.2f} s")
    print(f"  cold grade per file        {m['cold']:.2f} s")
    print(f"  batch per file (2 workers) {m['batch']:.2f} s")
    print("ratios")
    print(f"  batch per file / F                       {m['batch'] / m['floor']:.2f}   (goal <= 1)")
    print(f"  cold per file / batch per file           {m['cold'] / m['batch']:.2f}   (goal >= 5)")
    print(f"  single grade / (import jax + F)          {m['single'] / (m['import'] + m['floor']):.2f}   (goal <= 1.5)")
    if opts.baseline:
        print(f"against the baseline {opts.baseline} (same files, interleaved)")
        print(f"  cold grade per file        {m['cold']:.2f} s vs {m['base_cold']:.2f} s   "
              f"ratio {m['cold'] / m['base_cold']:.2f}")
        print(f"  batch per file (2 workers) {m['batch']:.2f} s vs {m['base_batch']:.2f} s   "
              f"ratio {m['batch'] / m['base_batch']:.2f}")
    print(json.dumps({k: round(v, 3) for k, v in m.items()}))
    header.save(opts)


if __name__ == "__main__":
    main()
