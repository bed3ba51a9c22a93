"""The catalogue travels with the package: the wheel (built from a clean copy of this
checkout) holds every problem and the wrong answers that feed hints, never an accepted
solution; installed into a fresh virtual environment outside the checkout, its
``grader`` lists, shows and grades from any folder; author folders add to it. With only
its ``serve`` extra, in an environment of its own, ``grader serve`` serves the pages and
grades, with none of the test tools installed."""
from __future__ import annotations

import os
import shutil
import subprocess
import time
import zipfile
from pathlib import Path

import pytest

from support import PROBLEMS, ROOT, SUBMISSIONS, install_wheel

P1 = "per_example_grad_clipping"
IDS = sorted(p.name for p in PROBLEMS.iterdir() if (p / "problem.toml").is_file())


def test_every_package_under_grader_ships_in_the_wheel():
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "grader").rglob("__init__.py")}
    assert on_disk <= listed, f"add to [tool.setuptools] packages: {sorted(on_disk - listed)}"
    assert {"grader.catalogue", "grader.submissions"} <= listed


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A wheel of this checkout, installed into a fresh virtual environment (it reuses the
    machine's JAX through --system-site-packages), and a folder outside the checkout."""
    from grader.export.wheel import build_checkout

    base = tmp_path_factory.mktemp("packaging")
    (base / "wheels").mkdir()
    wheel = build_checkout(base / "wheels")
    venv = install_wheel(base, str(wheel))
    away = base / "elsewhere"
    away.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "JAXJUDGE_PROBLEMS")}

    def grader(*args, cwd=away, extra=None):
        return subprocess.run([str(venv / "bin" / "grader"), *args], cwd=cwd, capture_output=True, text=True,
                              timeout=600, env={**env, **(extra or {})})

    return {"wheel": wheel, "venv": venv, "away": away, "grader": grader, "env": env}


def test_wheel_holds_every_problem_file_the_shipped_tables_and_wrong_answers_never_accepted_ones(installed):
    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    for pid in IDS:
        for path in (PROBLEMS / pid).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                assert f"grader/catalogue/{pid}/{path.relative_to(PROBLEMS / pid).as_posix()}" in names, path
    assert any(n.startswith(f"grader/catalogue/{P1}/cases/hidden/") for n in names)
    assert "grader/catalogue/_tables/manifest.json" in names  # the tables it ships (judge/tables.py)
    wrong = {f"grader/submissions/{p.relative_to(SUBMISSIONS).as_posix()}"
             for p in SUBMISSIONS.glob("*/wrong_answer/*") if p.suffix in (".py", ".ipynb")}
    assert wrong and wrong <= names
    shipped = {n.split("/")[3] for n in names if n.startswith("grader/submissions/")}
    assert shipped == {"wrong_answer"}
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


def test_installed_grader_lists_and_shows_from_another_folder(installed):
    from grader import __version__
    from grader.problem import find_problem
    from grader.problem.catalogue import content_hash

    grader = installed["grader"]
    version = grader("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"jaxjudge {__version__}"
    listed = grader("list")
    assert listed.returncode == 0 and all(pid in listed.stdout for pid in IDS) and "broken" not in listed.stdout
    shown = grader("show", P1)
    assert shown.returncode == 0 and "Per-Example Gradient Clipping" in shown.stdout
    assert f"problem_version {content_hash(find_problem(P1))}" in shown.stdout  # the hash reports record
    assert str(installed["venv"]) in shown.stdout  # from the installed package, not the checkout


def test_installed_grader_grades_a_file_and_a_notebook_from_a_temporary_folder(installed):
    import json

    away, grader = installed["away"], installed["grader"]
    shutil.copy(SUBMISSIONS / P1 / "accepted" / "flat_norm.py", away / "my.py")
    r = grader("grade", "my.py", "--problem", P1, "--format", "json", "--no-feedback")
    assert r.returncode == 0, r.stderr[-2000:]
    report = json.loads(r.stdout)
    assert report["verdict"] == "AC" and report["passed"] == report["total"] > 30
    shutil.copy(SUBMISSIONS / P1 / "accepted" / "notebook_with_scratch_cells.ipynb", away / "work.ipynb")
    nb = grader("grade", "work.ipynb", "--problem", P1, "--no-feedback", "--cell-tag", "solution")
    assert nb.returncode == 1 and nb.stdout.startswith("RJ")  # the tagged cell alone lacks its imports
    nb = grader("grade", "work.ipynb", "--problem", P1, "--no-feedback")
    assert nb.returncode == 0 and nb.stdout.startswith("AC Accepted"), nb.stdout[-2000:]


def test_installed_judge_finds_the_shipped_wrong_answers_for_hints(installed):
    from grader.judge.mistakes import wrong_answers
    from grader.problem import find_problem

    here = len(wrong_answers(find_problem(P1)))
    code = ("from grader.judge.mistakes import wrong_answers; from grader.problem import find_problem; "
            f"p = find_problem('{P1}'); w = wrong_answers(p); print(len(w), w[0].path)")
    r = subprocess.run([str(installed["venv"] / "bin" / "python"), "-c", code], cwd=installed["away"],
                       capture_output=True, text=True, timeout=120, env=installed["env"])
    count, path = r.stdout.split()
    assert int(count) == here > 0 and "site-packages/grader/submissions" in path


def test_author_folders_add_to_shadow_and_clash(installed, tmp_path):
    grader = installed["grader"]
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(PROBLEMS / P1, a / "my_clip")
    shutil.copytree(PROBLEMS / P1, b / "my_clip")
    shutil.copytree(PROBLEMS / P1, a / P1)
    statement = a / P1 / "statement.md"
    statement.write_text(statement.read_text().replace("Per-Example Gradient Clipping", "Shadowed Clipping", 1))
    listed = grader("--problems", str(a), "list")
    assert listed.returncode == 0 and "my_clip" in listed.stdout and all(pid in listed.stdout for pid in IDS)
    assert "Shadowed Clipping" in grader("--problems", str(a), "show", P1).stdout
    clash = grader("--problems", str(a), "show", "my_clip", extra={"JAXJUDGE_PROBLEMS": str(b)})
    assert clash.returncode == 2 and str(a) in clash.stderr and str(b) in clash.stderr
    assert "Traceback" not in clash.stderr
    listed = grader("show", "my_clip", extra={"JAXJUDGE_PROBLEMS": os.pathsep.join([str(b), str(a)])})
    assert listed.returncode == 2 and f"{b} and {a}" in listed.stderr
    missing = grader("--problems", str(tmp_path / "nope"), "list")
    assert missing.returncode == 2 and "no such problem folder" in missing.stderr


def test_new_writes_beside_the_user_never_into_the_installed_package(installed, tmp_path):
    r = installed["grader"]("new", "toy_problem", cwd=tmp_path)
    assert r.returncode == 0 and (tmp_path / "problems" / "toy_problem" / "problem.toml").is_file()
    assert not list(installed["venv"].rglob("toy_problem"))


def test_export_from_the_installed_judge_pins_the_installed_wheel(installed, tmp_path):
    r = installed["grader"]("export", "gradescope", P1, "-o", str(tmp_path / "ag.zip"))
    assert r.returncode == 0, r.stderr[-2000:]
    bundle = zipfile.ZipFile(tmp_path / "ag.zip")
    inner = [n for n in bundle.namelist() if n.endswith(".whl")]
    assert inner == [installed["wheel"].name]
    (tmp_path / "w.whl").write_bytes(bundle.read(inner[0]))
    packed, built = zipfile.ZipFile(tmp_path / "w.whl"), zipfile.ZipFile(installed["wheel"])
    same = [n for n in built.namelist() if not n.endswith("/RECORD")]
    assert sorted(same) == sorted(n for n in packed.namelist() if not n.endswith("/RECORD"))
    assert all(packed.read(n) == built.read(n) for n in same)


def test_the_installed_catalogue_lies_beneath_no_path_the_sandbox_leaves_readable(installed):
    """SECURITY.md: the sandbox carves the installed catalogue (and its wrong answers) out
    of site-packages, while the rest of the package stays readable."""
    code = ("import grader, pathlib; from grader.sandbox.env import default_readable_paths; "
            "print(pathlib.Path(grader.__file__).parent); print('\\n'.join(default_readable_paths()))")
    out = subprocess.run([str(installed["venv"] / "bin" / "python"), "-c", code], cwd=installed["away"],
                         capture_output=True, text=True, timeout=120, env=installed["env"]).stdout.splitlines()
    package, readable = Path(out[0]), [Path(p) for p in out[1:]]
    for data in (package / "catalogue", package / "submissions"):
        assert (data / P1).is_dir()
        assert not any(r == data or r in data.parents or data in r.parents for r in readable), data
    assert any(r == package / "sandbox" or r in (package / "sandbox").parents for r in readable)


@pytest.fixture(scope="module")
def served(installed, tmp_path_factory):
    """The wheel with its ``serve`` extra and nothing else, in a virtual environment that does
    not see the machine's packages (so none of the test extra's): what the README installs
    to run the web service."""
    base = tmp_path_factory.mktemp("serve_only")
    venv = install_wheel(base, f"{installed['wheel']}[serve]", system_site=False, timeout=1800)
    return {"venv": venv, "base": base}


def test_the_serve_extra_alone_serves_the_pages_and_grades(served, installed):
    import httpx
    from service_support import free_port

    venv, env = served["venv"], installed["env"]
    absent = subprocess.run([str(venv / "bin" / "python"), "-c", "import importlib.util as u; print(' '.join("
                             "m for m in ('pytest', 'playwright', 'dask', 'mypy', 'hypothesis', 'schemathesis') "
                             "if u.find_spec(m)))"], capture_output=True, text=True, timeout=120, env=env)
    assert absent.returncode == 0 and absent.stdout.strip() == "", absent.stdout  # none of the test tools
    grader, url = str(venv / "bin" / "grader"), f"sqlite:///{served['base'] / 'judge.sqlite3'}"
    made = subprocess.run([grader, "user", "add", "t@example.org", "--instructor", "--password-stdin", "--token", "ci",
                           "--db", url], input="long enough password\n", capture_output=True, text=True,
                          timeout=300, cwd=installed["away"], env=env)
    assert made.returncode == 0, made.stderr[-2000:]
    token = made.stdout.split("API token (shown once): ")[1].strip()
    port = free_port()
    log = open(served["base"] / "serve.log", "wb")
    proc = subprocess.Popen([grader, "serve", "--db", url, "--port", str(port), "--workers", "1"],
                            cwd=installed["away"], env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while True:
            assert proc.poll() is None, (served["base"] / "serve.log").read_text()[-3000:]
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, (served["base"] / "serve.log").read_text()[-3000:]
            time.sleep(0.5)
        page = httpx.get(f"{base}/login", timeout=30)
        assert page.status_code == 200 and 'id="login"' in page.text
        assert httpx.get(f"{base}/static/app.css", timeout=30).status_code == 200
        with httpx.Client(base_url=f"{base}/api/v1", headers={"Authorization": f"Bearer {token}"}, timeout=60) as c:
            source = (SUBMISSIONS / P1 / "accepted" / "flat_norm.py").read_text()
            r = c.post("/submissions", json={"problem": P1, "source": source, "kind": "run"})
            assert r.status_code == 202, r.text
            while (got := c.get(f"/submissions/{r.json()['id']}").json())["status"] != "done":
                assert time.monotonic() < deadline + 300, got
                time.sleep(0.5)
        assert got["verdict"] == "AC", got
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        log.close()
