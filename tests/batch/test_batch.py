"""grader batch: same verdicts as grade, a gradebook, resumable logs, and the Dask engine
surviving the loss of a worker."""
from __future__ import annotations

import csv
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support import ROOT, SUBMISSIONS

# Slow: every test grades a class folder through grader batch (10-25 s each).
pytestmark = pytest.mark.slow

P1 = "per_example_grad_clipping"
SAMPLE = ["accepted/flat_norm.py", "wrong_answer/sum_not_mean.py", "rejected/decoy_call.py",
          "compile_error/imports_os.py", "runtime_error/raises.py", "output_limit_exceeded/huge_output.py"]


@pytest.fixture(scope="module")
def sample_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("class")
    for rel in SAMPLE:
        dest = folder / rel.replace("/", "__")
        shutil.copy(SUBMISSIONS / P1 / rel, dest)
    return folder


def cli(*args, cwd=ROOT, timeout=600):
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def comparable(report: dict) -> dict:
    """A report without what differs run to run: timings, and which case the dependence
    probe reran (drawn secretly per grade)."""
    r = json.loads(json.dumps(report))
    r.pop("sha256", None)
    for case in r["cases"]:
        case["time_ms"] = None
    for check in [r, *r["runtime_checks"]]:  # the report's message repeats the failing check's
        check["message"] = re.sub(r"\bcase [\w.-]+", "case …", check["message"] or "")
    return r


@pytest.fixture(scope="module")
def batch_run(sample_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    # Without feedback: what feedback finds depends on its time budget, so reports would
    # differ from run to run.
    r = cli("batch", str(sample_dir), "--problem", P1, "--out", str(out / "r.jsonl"), "--csv", str(out / "g.csv"),
            "--no-feedback")
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in (out / "r.jsonl").read_text().splitlines()]
    return out, lines


def test_batch_reports_equal_grade_reports(sample_dir, batch_run):
    _, lines = batch_run
    by_path = {Path(r["submission"]).name: r for r in lines}
    assert len(by_path) == len(SAMPLE)
    for path in sorted(sample_dir.iterdir()):
        single = cli("grade", str(path), "--problem", P1, "--format", "json", "--no-feedback")
        assert comparable(json.loads(single.stdout)) == comparable(by_path[path.name]), path.name


def test_gradebook_csv(batch_run):
    out, lines = batch_run
    rows = list(csv.DictReader((out / "g.csv").open()))
    assert [r["file"] for r in rows] == sorted(r["submission"] for r in lines)
    verdicts = {Path(r["file"]).name.split("__")[0]: r["verdict"] for r in rows}
    assert verdicts == {"accepted": "AC", "wrong_answer": "WA", "rejected": "RJ", "compile_error": "CE",
                        "runtime_error": "RE", "output_limit_exceeded": "OLE"}
    assert all(int(r["passed"]) <= int(r["total"]) for r in rows)


def test_rerun_skips_graded_files_and_regrades_a_torn_record(sample_dir, tmp_path):
    log = tmp_path / "r.jsonl"
    first = cli("batch", str(sample_dir), "--problem", P1, "--out", str(log))
    assert first.returncode == 0
    lines = log.read_text().splitlines()
    # An interrupted run: the last report torn in half.
    log.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2])
    second = cli("batch", str(sample_dir), "--problem", P1, "--out", str(log))
    assert second.returncode == 0 and f"skipping {len(SAMPLE) - 1} file(s)" in second.stderr
    assert "graded 1 file(s)" in second.stdout
    records = [json.loads(x) for x in log.read_text().splitlines()]
    assert sorted(r["submission"] for r in records) == sorted(str(p) for p in sample_dir.iterdir())


def test_rerun_regrades_changed_files_and_everything_after_the_problem_changes(tmp_path, problem_copy):
    root = problem_copy()  # a private problems/ folder, made current for the CLI
    folder = tmp_path / "few"
    folder.mkdir()
    for rel in ("compile_error/imports_os.py", "runtime_error/raises.py"):
        shutil.copy(SUBMISSIONS / P1 / rel, folder / rel.replace("/", "__"))
    log = tmp_path / "r.jsonl"
    assert cli("batch", str(folder), "--problem", P1, "--out", str(log), "--no-feedback").returncode == 0
    changed = folder / "runtime_error__raises.py"
    changed.write_text(changed.read_text() + "\n# edited\n")
    again = cli("batch", str(folder), "--problem", P1, "--out", str(log), "--no-feedback")
    assert "skipping 1 file(s)" in again.stderr and "graded 1 file(s)" in again.stdout
    case = next((root / "cases" / "hidden").glob("*.json"))
    case.write_text(case.read_text() + "\n")  # a new problem version: every verdict is stale
    third = cli("batch", str(folder), "--problem", P1, "--out", str(log), "--no-feedback")
    assert "skipping" not in third.stderr and "graded 2 file(s)" in third.stdout
    versions = {json.loads(line)["problem_version"] for line in log.read_text().splitlines()}
    assert len(versions) == 2
    # A verdict by another version of the judge, or an IE (the judge's failure), is graded again.
    records = [json.loads(line) for line in log.read_text().splitlines()][-2:]
    records[0]["judge_version"], records[1]["verdict"] = "0.0.0-older", "IE"
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    fourth = cli("batch", str(folder), "--problem", P1, "--out", str(log), "--no-feedback")
    assert "skipping" not in fourth.stderr and "graded 2 file(s)" in fourth.stdout


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def dask_cluster(tmp_path):
    pytest.importorskip("distributed")
    port = _free_port()
    env = dict(os.environ, DASK_DISTRIBUTED__WORKER__DAEMON="False")
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    procs = [subprocess.Popen([*dask, "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)]
    address = f"tcp://127.0.0.1:{port}"
    for _ in range(2):
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--no-nanny",
             "--no-dashboard", "--host", "127.0.0.1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env))
    from distributed import Client

    with Client(address, timeout="60s") as client:
        client.wait_for_workers(2, timeout=120)
    yield address, procs
    for p in procs:
        p.kill()
        p.wait()


def test_dask_batch_grades_each_file_once_when_a_worker_is_killed_mid_batch(dask_cluster, sample_dir, tmp_path):
    address, procs = dask_cluster
    log = tmp_path / "dask.jsonl"
    batch = subprocess.Popen([sys.executable, "-m", "grader", "batch", str(sample_dir), "--problem", P1,
                              "--engine", "dask", "--scheduler", address, "--out", str(log)],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300
    while time.time() < deadline and (not log.exists() or not log.read_text().strip()):
        time.sleep(0.2)
    procs[1].send_signal(signal.SIGKILL)  # one worker dies mid-batch
    out, err = batch.communicate(timeout=600)
    assert batch.returncode == 0, err
    records = [json.loads(x) for x in log.read_text().splitlines()]
    paths = [r["submission"] for r in records]
    assert sorted(paths) == sorted(str(p) for p in sample_dir.iterdir())  # every result, exactly once
    local = {Path(r["submission"]).name: r["verdict"] for r in records}
    assert local["accepted__flat_norm.py"] == "AC" and local["rejected__decoy_call.py"] == "RJ"
