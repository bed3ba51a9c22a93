"""The Gradescope bundle: unpacked into a folder laid out like Gradescope's /autograder
(mapped through JAXJUDGE_AUTOGRADER_ROOT), setup.sh installs the pinned judge and
run_autograder writes a results.json that Gradescope's documented format accepts, for
an accepted, a wrong, a notebook and an ungradable submission."""
from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest

from support import PROBLEMS, ROOT, SUBMISSIONS, drawn_suite, stripped_copy

P1 = "per_example_grad_clipping"

# https://gradescope-autograders.readthedocs.io/en/latest/specs/ (Output format), as a schema.
VISIBILITY = {"enum": ["hidden", "after_due_date", "after_published", "visible"]}
FORMAT = {"enum": ["text", "html", "simple_format", "md", "ansi"]}
GRADESCOPE_RESULTS = {
    "type": "object",
    "properties": {
        "score": {"type": "number"},
        "max_score": {"type": "number"},
        "execution_time": {"type": "number"},
        "output": {"type": "string"},
        "output_format": FORMAT,
        "test_output_format": FORMAT,
        "test_name_format": FORMAT,
        "visibility": VISIBILITY,
        "stdout_visibility": VISIBILITY,
        "extra_data": {"type": "object"},
        "tests": {"type": "array", "items": {
            "type": "object",
            "properties": {
                "score": {"type": "number"}, "max_score": {"type": "number"},
                "status": {"enum": ["passed", "failed"]}, "name": {"type": "string"},
                "name_format": FORMAT, "number": {"type": "string"}, "output": {"type": "string"},
                "output_format": FORMAT, "tags": {"type": "array", "items": {"type": "string"}},
                "visibility": VISIBILITY, "extra_data": {"type": "object"},
            },
            "additionalProperties": False,
        }},
        "leaderboard": {"type": "array"},
    },
    "additionalProperties": False,
    # A score on the submission, or one on every test.
    "anyOf": [{"required": ["score"]}, {"properties": {"tests": {"items": {"required": ["score"]}}}}],
}


@pytest.fixture(scope="module")
def autograder(tmp_path_factory):
    """The bundle, exported from this checkout with a wheel built from it, unpacked as
    Gradescope does and set up by its own setup.sh."""
    from grader.export.wheel import build_checkout

    base = tmp_path_factory.mktemp("gradescope")
    (base / "wheels").mkdir()
    wheel = build_checkout(base / "wheels")
    bundle = base / "autograder.zip"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("JAXJUDGE_PROBLEMS", None)
    done = subprocess.run([sys.executable, "-m", "grader", "export", "gradescope", P1, "-o", str(bundle),
                           "--wheel", str(wheel)], cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    root = base / "autograder"
    (root / "source").mkdir(parents=True)
    with zipfile.ZipFile(bundle) as z:
        for info in z.infolist():  # as unzip does: files with their mode bits
            z.extract(info, root / "source")
            os.chmod(root / "source" / info.filename, (info.external_attr >> 16) & 0o777)
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")  # Gradescope's image build does this
    run_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "JAXJUDGE_PROBLEMS")}
    run_env.update(JAXJUDGE_AUTOGRADER_ROOT=str(root), JAXJUDGE_PYTHON=sys.executable)
    setup = subprocess.run(["bash", str(root / "source" / "setup.sh")], cwd=root, capture_output=True, text=True,
                           timeout=1200, env=run_env)
    assert setup.returncode == 0, setup.stdout[-2000:] + setup.stderr[-3000:]
    return {"bundle": bundle, "root": root, "env": run_env, "setup": setup}


def run_autograder(ag, *files: Path) -> dict:
    root = ag["root"]
    shutil.rmtree(root / "submission", ignore_errors=True)
    shutil.rmtree(root / "results", ignore_errors=True)
    (root / "submission").mkdir()
    for f in files:
        shutil.copy(f, root / "submission" / f.name)
    done = subprocess.run([str(root / "run_autograder")], cwd=root, capture_output=True, text=True, timeout=900,
                          env=ag["env"])
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((root / "results" / "results.json").read_text())
    jsonschema.validate(results, GRADESCOPE_RESULTS)
    return results


def test_bundle_holds_the_scripts_the_pinned_wheel_and_the_problem(autograder):
    from grader.problem import find_problem
    from grader.problem.catalogue import content_hash

    with zipfile.ZipFile(autograder["bundle"]) as z:
        modes = {i.filename: (i.external_attr >> 16) for i in z.infolist()}
        names = set(modes)
        env = z.read("jaxjudge.env").decode()
    assert {"setup.sh", "run_autograder", "jaxjudge.env", "constraints.txt"} <= names
    assert all(modes[n] & stat.S_IXUSR for n in ("setup.sh", "run_autograder"))
    assert [n for n in names if n.endswith(".whl")] == [n.split("=", 1)[1] for n in env.splitlines()
                                                       if n.startswith("JAXJUDGE_WHEEL=")]
    files = {p.relative_to(PROBLEMS).as_posix() for p in (PROBLEMS / P1).rglob("*") if p.is_file()
             and "__pycache__" not in p.parts}
    assert {f"problems/{f}" for f in files} <= names
    assert f"JAXJUDGE_PROBLEM_VERSION={content_hash(find_problem(P1))}" in env
    assert not [n for n in names if n.startswith("submissions/") and "/wrong_answer/" not in n]


def test_setup_installs_the_pinned_judge_and_drops_its_catalogue_copy(autograder):
    from grader import __version__

    root = autograder["root"]
    python = root / "jaxjudge-venv" / "bin" / "python"
    assert f"jaxjudge {__version__} ready for {P1}" in autograder["setup"].stdout
    code = ("import grader, pathlib; from grader.sandbox.env import default_readable_paths; "
            "print(pathlib.Path(grader.__file__).parent); print('\\n'.join(default_readable_paths()))")
    out = subprocess.run([str(python), "-c", code], cwd=root, capture_output=True, text=True, timeout=120,
                         env=autograder["env"]).stdout.splitlines()
    package, readable = Path(out[0]), out[1:]
    assert not (package / "catalogue").exists() and not (package / "submissions").exists()
    assert list((root / "jaxjudge-cache" / "mistakes").rglob("*.json"))  # grader warm ran
    problem = root / "source" / "problems" / P1

    def beneath(path: Path, top: str) -> bool:
        return path == Path(top) or Path(top) in path.parents

    # No path the sandboxed child may read holds the bundle's problem (its hidden cases).
    assert readable and not [r for r in readable if beneath(problem, r) or beneath(Path(r), str(problem))]


def test_accepted_submission_gets_full_marks(autograder):
    results = run_autograder(autograder, SUBMISSIONS / P1 / "accepted" / "flat_norm.py")
    cases = [t for t in results["tests"] if " case " in t["name"]]
    assert results["score"] == results["max_score"] == len(cases) > 30
    assert all(t["status"] == "passed" for t in cases)


def test_wrong_submission_scores_its_passed_cases_and_hides_hidden_ones(autograder):
    results = run_autograder(autograder, SUBMISSIONS / P1 / "wrong_answer" / "norm_without_bias.py")
    cases = [t for t in results["tests"] if " case " in t["name"]]
    assert 0 < results["score"] < results["max_score"] == len(cases)
    assert results["score"] == sum(t["score"] for t in cases)
    assert results["output"].startswith("WA Wrong Answer")
    hidden = [t for t in cases if t["name"].startswith("hidden")]
    assert hidden and all(t["visibility"] == "after_published" for t in hidden)
    assert all(t["visibility"] == "visible" for t in cases if t["name"].startswith("public"))


def test_notebook_submission_is_graded(autograder):
    results = run_autograder(autograder, SUBMISSIONS / P1 / "accepted" / "notebook_with_scratch_cells.ipynb")
    assert results["score"] == results["max_score"] > 0


@pytest.mark.parametrize("case", ["none", "two", "binary"])
def test_ungradable_submission_scores_zero_with_a_reason(autograder, tmp_path, case):
    files = {"none": [], "two": [SUBMISSIONS / P1 / "accepted" / "flat_norm.py",
                                 SUBMISSIONS / P1 / "wrong_answer" / "sum_not_mean.py"]}.get(case)
    if files is None:
        (tmp_path / "answer.py").write_bytes(b"\xff\xfe\x00 not text")
        files = [tmp_path / "answer.py"]
    results = run_autograder(autograder, *files)
    assert results["score"] == 0 and results["max_score"] > 0
    words = {"none": "exactly one .py or .ipynb file (found: none)", "two": "flat_norm.py, sum_not_mean.py",
             "binary": "not UTF-8"}[case]
    assert words in results["output"]


def test_the_results_schema_is_not_vacuous():
    good = {"score": 1, "tests": [{"name": "a", "score": 1, "max_score": 1, "visibility": "visible"}]}
    jsonschema.validate(good, GRADESCOPE_RESULTS)
    for bad in ({**good, "visibility": "after_publish"}, {**good, "tests": [{"score": 1, "hint": "x"}]},
                {"tests": [{"name": "no score"}]}, {"score": "full"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, GRADESCOPE_RESULTS)


def test_a_wheel_of_another_version_is_refused(tmp_path):
    from grader.export.wheel import WheelError, judge_wheel

    fake = tmp_path / "jaxjudge-9.9.9-py3-none-any.whl"
    with zipfile.ZipFile(fake, "w") as z:
        z.writestr("grader/__init__.py", "")
    (tmp_path / "out").mkdir()
    with pytest.raises(WheelError, match="9.9.9"):
        judge_wheel(tmp_path / "out", fake)


def test_bad_export_writes_nothing(tmp_path):
    out = tmp_path / "autograder.zip"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "grader", "export", "gradescope", P1, "-o", str(out), "--cell-tag",
                        "bad tag;rm"], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 2 and "--cell-tag" in r.stderr and "Traceback" not in r.stderr
    assert not list(tmp_path.iterdir())


def test_run_autograder_passes_the_cell_tag_to_notebooks(tmp_path, monkeypatch):
    from grader import __version__
    from grader.export import run_gradescope

    (tmp_path / "source").mkdir()
    (tmp_path / "source" / "jaxjudge.env").write_text(
        f"JAXJUDGE_PROBLEM={P1}\nJAXJUDGE_VERSION={__version__}\nJAXJUDGE_MAX_SCORE=41\nJAXJUDGE_CELL_TAG=solution\n")
    (tmp_path / "submission").mkdir()
    seen = []

    def fake_run(cmd, **kw):
        seen.append(cmd)
        Path(cmd[cmd.index("-o") + 1]).write_text('{"score": 0, "tests": []}')
        return subprocess.CompletedProcess(cmd, 1, "", "")

    monkeypatch.setattr(run_gradescope.subprocess, "run", fake_run)
    for name in ("work.ipynb", "work.py"):
        for old in (tmp_path / "submission").iterdir():
            old.unlink()
        (tmp_path / "submission" / name).write_text("x")
        assert run_gradescope.run(tmp_path) == 0
    assert seen[0][-2:] == ["--cell-tag", "solution"] and "--cell-tag" not in seen[1]


def _pinned_wheel(folder: Path) -> Path:
    """A file the export takes for this judge's wheel (its name and version, a grader
    package): enough for a bundle that is read here, never installed."""
    from grader import __version__

    wheel = folder / f"jaxjudge-{__version__}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("grader/__init__.py", "")
    return wheel


def test_export_of_a_problem_installed_without_its_hidden_cases_needs_a_suite_and_writes_nothing(tmp_path,
                                                                                                   monkeypatch):
    from click.testing import CliRunner

    from grader.cli import main
    from grader.problem.catalogue import PROBLEMS_ENV

    stripped_copy(tmp_path / "problems", P1, "bare_clipping")
    monkeypatch.setenv(PROBLEMS_ENV, str(tmp_path / "problems"))
    out = tmp_path / "out" / "autograder.zip"
    r = CliRunner().invoke(main, ["export", "gradescope", "bare_clipping", "-o", str(out),
                                  "--wheel", str(_pinned_wheel(tmp_path))])
    assert r.exit_code == 2 and "ships without its hidden cases" in r.stderr, r.output
    assert "grader suite draw --suite DIR, then export with --suite DIR" in r.stderr
    assert not out.exists() and not (tmp_path / "out").exists()


def test_export_with_a_suite_bundles_the_drawn_hidden_cases_and_the_autograder_grades_with_them(tmp_path,
                                                                                                  monkeypatch):
    from click.testing import CliRunner

    from grader.cli import main
    from grader.export import run_gradescope
    from grader.export.run_gradescope import read_env
    from grader.problem import load_problem
    from grader.problem.catalogue import PROBLEMS_ENV, content_hash
    from grader.problem.suite import PLAN_FILE

    bare = load_problem(stripped_copy(tmp_path / "problems", P1, "bare_clipping"))
    suite_id, ids = drawn_suite(tmp_path / "suite", bare, P1, keep=3)
    monkeypatch.setenv(PROBLEMS_ENV, str(tmp_path / "problems"))
    bundle = tmp_path / "autograder.zip"
    r = CliRunner().invoke(main, ["export", "gradescope", "bare_clipping", "-o", str(bundle), "--suite",
                                  str(tmp_path / "suite"), "--wheel", str(_pinned_wheel(tmp_path))])
    assert r.exit_code == 0 and f"hidden cases of suite {suite_id}" in r.stdout, r.output
    root = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as z:
        z.extractall(root / "source")
    folder = root / "source" / "problems" / "bare_clipping"
    assert sorted(p.stem for p in (folder / "cases" / "hidden").iterdir()) == ids
    assert not (folder / "cases" / PLAN_FILE).exists()
    for case in ids:  # byte for byte the drawn case
        drawn = next((tmp_path / "suite").rglob(f"hidden/{case}.json"))
        assert (folder / "cases" / "hidden" / f"{case}.json").read_bytes() == drawn.read_bytes()
    env = read_env(root / "source" / "jaxjudge.env")
    public = len(bare.public_cases())
    assert env["JAXJUDGE_SUITE"] == suite_id and env["JAXJUDGE_MAX_SCORE"] == str(public + 3)
    assert env["JAXJUDGE_PROBLEM_VERSION"] == content_hash(load_problem(folder))
    # What run_autograder runs, here with this checkout's judge rather than setup.sh's.
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    (root / "submission").mkdir()
    shutil.copy(SUBMISSIONS / P1 / "accepted" / "flat_norm.py", root / "submission" / "flat_norm.py")
    assert run_gradescope.run(root) == 0
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == results["max_score"] == public + 3, results
    assert sorted(t["name"] for t in results["tests"] if t["visibility"] == "after_published") == \
        [f"hidden case {c}" for c in ids]
