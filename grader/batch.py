"""``grader batch``: grade every ``.py`` and ``.ipynb`` below a folder, locally on a pool of warm
sandboxes or on a Dask cluster, with a JSON-lines log that makes re-runs resume.

Each line of the log is the report ``grade --format json`` prints, plus the
file's ``sha256``; a re-run skips files whose path and content, problem version
and judge version are unchanged.
Timeouts stay inside each sandbox (Dask cannot pre-empt a running task), so a
hanging submission costs its own time limit and nothing else.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from .common.files import write_atomic
from .problem import Problem

SUFFIXES = (".py", ".ipynb")


@dataclass(frozen=True)
class Item:
    path: str
    data: bytes  # the file as read; decoding is the submission stage's (not UTF-8 is CE)
    sha256: str
    cell_tag: str | None = None  # notebooks: grade only the code cells with this tag


def discover(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    # Dot folders (.ipynb_checkpoints, .git) and caches hold no submissions.
    return sorted(p for p in root.rglob("*") if p.suffix.lower() in SUFFIXES and p.is_file()
                  and not any(part.startswith(".") or part == "__pycache__" for part in p.relative_to(root).parts))


def read_items(paths: Iterable[Path], cell_tag: str | None = None) -> tuple[list[Item], list[tuple[str, str]]]:
    """The files' bytes; those the operating system refuses to read are returned apart,
    with why. ``cell_tag`` goes with notebooks."""
    items, errors = [], []
    for path in paths:
        try:
            data = path.read_bytes()
        except OSError as exc:
            errors.append((str(path), f"the judge cannot read the file ({exc.strerror})"))
            continue
        tag = cell_tag if path.suffix.lower() == ".ipynb" else None
        items.append(Item(str(path), data, hashlib.sha256(data).hexdigest(), tag))
    return items, errors


def unreadable_report(problem: Problem, path: str, why: str) -> dict:
    """The log line of a file the judge could not read: IE (not the learner's doing), so
    that a re-run tries it again."""
    from . import __version__
    from .common.verdicts import Verdict
    from .problem.catalogue import content_hash
    from .report.model import Report

    report = Report(problem=problem.id, submission=path, verdict="IE", verdict_title=Verdict.IE.title,
                    reason="judge", message=why, total=len(problem.cases), problem_version=content_hash(problem),
                    judge_version=__version__).to_json()
    report["sha256"] = ""
    return report


def _key(rec: dict) -> tuple:
    """What makes a logged verdict still valid: the same file content graded for the same
    problem version by the same judge version."""
    return (rec["submission"], rec["sha256"], rec["problem"], rec["problem_version"], rec["judge_version"],
            rec.get("cell_tag"))


def load_log(out: Path) -> dict[tuple, dict]:
    """Reports already graded, by ``_key``. A torn last line from an interrupted run is
    dropped, and the log is rewritten clean before new lines are appended."""
    if not out.exists():
        return {}
    done: dict[tuple, dict] = {}
    for line in out.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            rec = json.loads(line)
            done[_key(rec)] = rec
        except (ValueError, KeyError, TypeError):
            continue
    write_atomic(out, "".join(json.dumps(r, allow_nan=False) + "\n" for r in done.values()))
    return done


def grade_item(problem: Problem, item: Item, sandbox, feedback=None) -> dict:
    from .judge.notebook import locate
    from .judge.pipeline import grade
    from .judge.submission import submission_from_bytes

    sub = submission_from_bytes(item.data, item.path, item.cell_tag)
    report = locate(grade(problem, sub, sandbox, feedback=feedback).report, sub.cells).to_json()
    report["sha256"] = item.sha256
    if item.cell_tag is not None:
        report["cell_tag"] = item.cell_tag
    return report


# ------------------------------------------------------------------ engines

def run_local(problem: Problem, items: list[Item], workers: int, feedback=None) -> Iterator[dict]:
    from .sandbox.host import Pool
    from .sandbox.xla_cache import fill

    with Pool(workers) as pool:
        if items:
            # The zygotes import JAX while the cache is filled (once per machine and
            # problem: eager submissions then compile less).
            starting = threading.Thread(target=pool.start_all, daemon=True)
            starting.start()
            fill(problem)
            starting.join()
        yield from pool.submit_all(lambda sandbox, item: grade_item(problem, item, sandbox, feedback), items)


_WORKER_SANDBOX = None


def grade_on_worker(problem: Problem, item: Item, feedback=None) -> dict:
    """Runs inside a Dask worker: one warm sandbox per worker process, reused."""
    global _WORKER_SANDBOX
    from .sandbox.host import Sandbox

    if _WORKER_SANDBOX is None:
        _WORKER_SANDBOX = Sandbox()
    return grade_item(problem, item, _WORKER_SANDBOX, feedback)


def run_dask(problem: Problem, items: list[Item], scheduler: str, feedback=None) -> Iterator[dict]:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise RuntimeError("the dask engine needs dask[distributed]: pip install 'jaxjudge[dask]'") from None
    with Client(scheduler, timeout="30s") as client:
        remote_problem = client.scatter(problem, broadcast=True)
        futures = [client.submit(grade_on_worker, remote_problem, item, feedback, key=f"grade-{item.sha256[:16]}-{i}",
                                 pure=False, retries=2) for i, item in enumerate(items)]
        for future in as_completed(futures):
            yield future.result()


# ------------------------------------------------------------------ outputs

def gradebook(reports: Iterable[dict]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["file", "verdict", "passed", "total"])
    for r in sorted(reports, key=lambda r: r["submission"]):
        w.writerow([r["submission"], r["verdict"], r.get("passed", 0), r.get("total", 0)])
    return buf.getvalue()


def run_batch(problem: Problem, root: Path, engine: Callable[[list[Item]], Iterator[dict]], out: Path | None,
              csv_path: Path | None, progress: Callable[[int, int], Callable[[dict], None]],
              cell_tag: str | None = None) -> list[dict]:
    from . import __version__
    from .problem.catalogue import content_hash

    items, unreadable = read_items(discover(root), cell_tag)
    done = load_log(out) if out else {}
    version = content_hash(problem)

    def key(item: Item) -> tuple:
        return (item.path, item.sha256, problem.id, version, __version__, item.cell_tag)

    # An IE is the judge's failure, not a verdict: a re-run grades that file again.
    valid = {k: rec for k, rec in done.items() if rec.get("verdict") != "IE"}
    results = [valid[key(i)] for i in items if key(i) in valid]
    todo = [i for i in items if key(i) not in valid]
    step = progress(len(todo) + len(unreadable), len(items) - len(todo))
    refused = [unreadable_report(problem, path, why) for path, why in unreadable]
    log = open(out, "a", encoding="utf-8") if out else None
    try:
        for report in [*refused, *(engine(todo) if todo else [])]:
            results.append(report)
            if log:
                log.write(json.dumps(report, allow_nan=False) + "\n")
                log.flush()
                os.fsync(log.fileno())
            step(report)
    finally:
        if log:
            log.close()
    if csv_path:
        write_atomic(csv_path, gradebook(results))
    return results
