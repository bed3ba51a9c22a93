"""`grader serve --engine dask`: claimed jobs are graded on a Dask cluster (a local
scheduler and one worker on 127.0.0.1), with the same reports as local workers."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from service_support import Server, corpus, free_port, make_user, post, sqlite_url, wait_done

# Slow: a Dask cluster starts for one grade (15 s).
pytestmark = pytest.mark.slow


@pytest.fixture
def cluster():
    pytest.importorskip("distributed")
    port = free_port()
    env = dict(os.environ, DASK_DISTRIBUTED__WORKER__DAEMON="False")
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                               "--port", str(port), "--no-dashboard"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=env)]
    address = f"tcp://127.0.0.1:{port}"
    procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                                   "--no-nanny", "--no-dashboard", "--host", "127.0.0.1"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env))
    from distributed import Client

    with Client(address, timeout="60s") as client:
        client.wait_for_workers(1, timeout=120)
    yield address
    for p in procs:
        p.kill()
        p.wait()


def test_dask_engine_grades_claimed_jobs(cluster, tmp_path):
    url = sqlite_url(tmp_path)
    token = make_user(url, "ann@example.org")
    server = Server(url, "--no-feedback", "--engine", "dask", "--scheduler", cluster, workers=1).start()
    try:
        with server.client(token) as ann:
            ids = [post(ann, corpus(rel), "run").json()["id"]
                   for rel in ("accepted/flat_norm.py", "wrong_answer/norm_without_bias.py")]
            done = [wait_done(ann, sid, timeout=300) for sid in ids]
            health = ann.get(server.base + "/healthz").json()
    finally:
        server.stop()
    assert [d["verdict"] for d in done] == ["AC", "WA"] and done[1]["report"]["cases"][0]["input"] is not None
    assert health["engine"] == "dask" and health["workers"]["alive"] == 1
