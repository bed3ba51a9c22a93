"""Load and fault on a live server, measured side by side with `grader batch`, in one run.

    python3 bench/service_load.py [--clients 20] [--each 10] [--no-postgres] [--no-fault]

20 concurrent clients x 10 Submits each (accepted, wrong and attack files of
per_example_grad_clipping; each client submits, follows the submission's events to
its verdict, then submits the next), against `grader serve --workers 2` on
127.0.0.1, feedback off on both sides:
  - batch: `grader batch --workers 2` over the same 200 files (its wall time, its
    start included), run right before each load run;
  - load: the same files through the service (first POST to last verdict), on SQLite
    and on PostgreSQL; every submission must be graded exactly once (one row per
    client request, attempts 1) with the verdict `grader grade` gives the file;
  - fault: the same load, the server killed with SIGKILL once half is graded, then
    restarted: none lost, none duplicated, the interrupted ones graded again.
Goal (the issue): service throughput within 20% of batch's."""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import header
import httpx
from service_harness import P1, ROOT, Serve, make_user, postgres, submit, wait_events

FILES = ["accepted/" + f for f in ("argnums_tuple.py", "flat_norm.py", "jit_partial_aliases.py",
                                   "python_control_flow.py", "ravel_pytree.py")] + \
        ["wrong_answer/" + f for f in ("always_rescale.py", "bias_shape.py", "clipped_norms.py", "sum_not_mean.py",
                                       "norm_without_bias.py", "attack_always_equal_output.py",
                                       "attack_return_hidden_inputs.py", "attack_finalizer_in_judge_context.py",
                                       "attack_markup_output_keys.py", "attack_leaked_tracer.py")] + \
        ["compile_error/attack_dunder_globals.py", "compile_error/attack_import_importlib.py",
         "runtime_error/attack_monkeypatch_jnp.py", "runtime_error/attack_read_hidden_cases.py",
         "runtime_error/attack_print_and_raise_hidden.py"]
SERVE_ARGS = ("--no-feedback", "--submit-limit", "100000/min", "--max-pending", "100", "--queue-cap", "10000")


def plan(clients: int, each: int) -> list[list[str]]:
    return [[FILES[(c * each + k) % len(FILES)] for k in range(each)] for c in range(clients)]


def expected_verdicts() -> dict[str, str]:
    """What `grader grade` says of each distinct file."""
    out = {}
    for rel in FILES:
        done = subprocess.run([sys.executable, "-m", "grader", "grade", str(ROOT / "submissions" / P1 / rel),
                               "--problem", P1, "--format", "json", "--no-feedback"], cwd=ROOT, capture_output=True,
                              text=True, timeout=600)
        out[rel] = json.loads(done.stdout)["verdict"]
    return out


def run_batch(work: list[list[str]], tmp: Path) -> tuple[float, dict[str, str]]:
    tmp.mkdir()
    folder = tmp / "class"
    folder.mkdir()
    for c, files in enumerate(work):
        for k, rel in enumerate(files):
            shutil.copy(ROOT / "submissions" / P1 / rel, folder / f"{c:02d}_{k:02d}__{rel.replace('/', '__')}")
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "grader", "batch", str(folder), "--problem", P1, "--workers", "2",
                    "--no-feedback", "--out", str(tmp / "batch.jsonl")], cwd=ROOT, capture_output=True, timeout=3600)
    took = time.perf_counter() - start
    verdicts = {}
    for line in (tmp / "batch.jsonl").read_text().splitlines():
        rec = json.loads(line)
        verdicts[Path(rec["submission"]).name.split("__", 1)[1].replace("__", "/")] = rec["verdict"]
    return took, verdicts


def _follow(base: str, token: str, sid: str, deadline: float) -> None:
    while time.time() < deadline:
        try:
            return wait_events(base, token, sid)
        except (httpx.TransportError, RuntimeError):
            time.sleep(0.3)  # the server is down: follow again once it is back
    raise RuntimeError(f"{sid}: no verdict in time")


def run_load(url: str, work: list[list[str]], kill_at: float | None) -> dict:
    tokens = [make_user(url, f"client{c}@example.org") for c in range(len(work))]
    teacher = make_user(url, "teacher@example.org", instructor=True)
    server = Serve(url, *SERVE_ARGS, workers=2).start()
    ids: dict[str, tuple[str, str]] = {}
    deadline = time.time() + 3600
    errors: list[str] = []

    def client(c: int) -> None:
        try:
            for k, rel in enumerate(work[c]):
                key = f"c{c}-{k}"
                sid = submit(server.base, tokens[c], P1, (ROOT / "submissions" / P1 / rel).read_text(), "submit",
                             key=key, deadline=deadline)
                ids[key] = (sid, rel)
                _follow(server.base, tokens[c], sid, deadline)
        except Exception as exc:  # reported below; a bench must not hang on one client
            errors.append(f"client {c}: {exc}")

    start = time.perf_counter()
    threads = [threading.Thread(target=client, args=(c,), daemon=True) for c in range(len(work))]
    for t in threads:
        t.start()
    restarts = 0
    if kill_at is not None:
        total = sum(len(w) for w in work)
        with httpx.Client(base_url=server.base + "/api/v1", headers={"Authorization": f"Bearer {teacher}"}) as c:
            while c.get("/queue").json()["done"] < kill_at * total:
                time.sleep(0.2)
        server.kill()
        server = Serve(url, *SERVE_ARGS, workers=2, port=server.port).start()
        restarts = 1
    for t in threads:
        t.join(timeout=max(1.0, deadline - time.time()))
    took = time.perf_counter() - start
    log = server.log.read_text()
    server.stop()
    return {"seconds": took, "ids": ids, "errors": errors, "restarts": restarts, "log": log}


def check(url: str, result: dict, expected: dict[str, str], n: int) -> dict:
    """Exactly once: one row per client request, all done, verdicts as `grader grade`'s."""
    from sqlalchemy import select

    from grader.service.core.models import Submission
    from grader.service.server import open_database

    db = open_database(url)
    with db.read() as s:
        rows = {r.id: r for r in s.scalars(select(Submission)).all()}
    db.close()
    wrong = [(rel, rows[sid].verdict, expected[rel]) for sid, rel in result["ids"].values()
             if sid in rows and rows[sid].verdict != expected[rel]]
    return {"requests": n, "rows": len(rows), "accepted": len(result["ids"]),
            "done": sum(1 for r in rows.values() if r.status == "done"),
            "regraded": sum(1 for r in rows.values() if r.attempts > 1), "verdict_mismatches": len(wrong),
            **({"mismatch_examples": wrong[:3]} if wrong else {}),
            **({"client_errors": result["errors"][:3]} if result["errors"] else {})}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--each", type=int, default=10)
    ap.add_argument("--no-postgres", action="store_true")
    ap.add_argument("--no-fault", action="store_true")
    header.add_save_option(ap)
    opts = ap.parse_args()
    header.start(opts)
    work = plan(opts.clients, opts.each)
    n = sum(len(w) for w in work)
    expected = expected_verdicts()
    results = {}
    pg = None if opts.no_postgres else postgres()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            runs = [("sqlite", None)] + ([("postgresql", None)] if pg is not None else [])
            if not opts.no_fault:
                runs += [("sqlite", 0.5)] + ([("postgresql", 0.5)] if pg is not None else [])
            for i, (kind, kill_at) in enumerate(runs):
                if kill_at is None:  # a batch right before each load: the machine's load drifts over minutes
                    batch_s, batch_verdicts = run_batch(work, tmp / f"batch{i}")
                    results[f"batch {i + 1}"] = {
                        "seconds": round(batch_s, 1),
                        "verdict_mismatches": sum(1 for rel, v in batch_verdicts.items() if v != expected[rel])}
                url = f"sqlite:///{tmp / f'load{i}.sqlite3'}" if kind == "sqlite" else pg.new_database()
                res = run_load(url, work, kill_at)
                name = f"{'fault' if kill_at else 'load'} {kind}"
                results[name] = {"seconds": round(res["seconds"], 1), **check(url, res, expected, n)}
                if kill_at:
                    line = [x for x in res["log"].splitlines() if "requeued" in x]
                    results[name]["after_restart"] = line[-1].split(": ", 1)[-1] if line else "nothing requeued"
                else:
                    results[name]["service_over_batch_time"] = round(res["seconds"] / batch_s, 2)
    finally:
        if pg is not None:
            pg.stop()
    print(f"{P1}: {opts.clients} clients x {opts.each} Submits = {n} submissions of {len(FILES)} files, "
          f"2 workers, feedback off")
    for name, r in results.items():
        print(f"  {name:<18} {r['seconds']:>7.1f} s  {n / r['seconds']:.2f}/s  " +
              ", ".join(f"{k} {v}" for k, v in r.items() if k != "seconds"))
    print(json.dumps(results))
    header.save(opts)


if __name__ == "__main__":
    main()
