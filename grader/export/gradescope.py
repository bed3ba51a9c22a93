"""``grader export gradescope PROBLEM -o autograder.zip``: an autograder bundle that
Gradescope's autograder image runs (https://gradescope-autograders.readthedocs.io/en/latest/specs/).

The zip holds, at its root:

    setup.sh            installs the pinned judge (the wheel below) and warms its caches
    run_autograder      grades /autograder/submission/*.py or *.ipynb into results.json
    jaxjudge.env        problem id and version, judge version, wheel, Python, cell tag
    constraints.txt     the judge's dependencies at the versions this machine runs
    jaxjudge-*.whl      this judge
    problems/ID/        the problem, byte for byte (its content hash is the one reports record);
                        exported with a drawn suite (``--suite DIR``), its cases/hidden/ holds
                        the drawn cases instead of the shipped ones
    submissions/ID/wrong_answer/   the misconception hints (never accepted solutions)

The zip is written to a temporary file beside ``out`` and renamed: nothing half written.
"""
from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
import zipfile
from importlib.metadata import PackageNotFoundError, distribution, version
from importlib.resources import files
from pathlib import Path

from .. import __version__
from ..problem import Problem, load_problem
from ..problem.catalogue import content_hash
from ..problem.corpus import submissions_root
from ..problem.suite import SuiteError, plan_path, refuse_stripped
from .wheel import DIST, judge_wheel

TAG_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
EXECUTABLE = 0o100755 << 16
REGULAR = 0o100644 << 16


class ExportError(Exception):
    """The bundle cannot be written (one message, nothing written)."""


def constraints() -> str:
    """``name==version`` for every dependency of the judge installed here (those of extras
    left out): the bundle grades with the versions validated here. A constraint only
    pins a package something requires; it never installs one."""
    try:
        requires = distribution(DIST).requires or []
    except PackageNotFoundError:
        return ""
    pins = set()
    for raw in requires:
        name, _, marker = raw.partition(";")
        m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", name)
        if not m or "extra" in marker:
            continue
        try:
            pins.add(f"{m.group(1)}=={version(m.group(1))}\n")
        except PackageNotFoundError:
            continue
    return "".join(sorted(pins))


def bundled_problem(problem: Problem, tmp: Path) -> Problem:
    """``problem`` as the bundle holds it. Given with a drawn suite (``problem.suite``), a
    copy in ``tmp`` whose cases/hidden/ are the drawn cases (neither a shipped hidden case
    nor a plan file): the autograder grades with them as the problem's own hidden cases,
    and its content hash is the version its reports record."""
    if problem.suite is None:
        return problem
    folder = tmp / "problem" / problem.id
    shipped_hidden, plan = problem.cases_dir("hidden"), plan_path(problem)
    for path in sorted(problem.root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path != plan \
                and not path.is_relative_to(shipped_hidden):
            (folder / path.relative_to(problem.root)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, folder / path.relative_to(problem.root))
    (folder / "cases" / "hidden").mkdir(parents=True, exist_ok=True)
    for case in problem.cases:
        if case.hidden:
            shutil.copyfile(case.path, folder / "cases" / "hidden" / f"{case.id}.json")
    return load_problem(folder)


def _problem_files(problem: Problem, bundled: Problem) -> list[tuple[str, Path]]:
    out = [(f"problems/{problem.id}/{p.relative_to(bundled.root).as_posix()}", p)
           for p in sorted(bundled.root.rglob("*")) if p.is_file() and "__pycache__" not in p.parts]
    wrong = submissions_root(problem) / problem.id / "wrong_answer"
    if wrong.is_dir():
        out += [(f"submissions/{problem.id}/wrong_answer/{p.name}", p) for p in sorted(wrong.iterdir())
                if p.is_file() and p.suffix in (".py", ".ipynb")]
    return out


def _env(problem: Problem, wheel: Path, cell_tag: str | None, suite: str | None) -> str:
    values = {
        "JAXJUDGE_PROBLEM": problem.id, "JAXJUDGE_PROBLEM_VERSION": content_hash(problem),
        "JAXJUDGE_VERSION": __version__, "JAXJUDGE_WHEEL": wheel.name,
        "JAXJUDGE_PYTHON": f"python{sys.version_info.major}.{sys.version_info.minor}",
        "JAXJUDGE_MAX_SCORE": str(len(problem.cases)), "JAXJUDGE_CELL_TAG": cell_tag or "",
        "JAXJUDGE_SUITE": suite or "",  # the drawn suite whose hidden cases the bundle holds, by its id
    }
    return "# Written by grader export gradescope; setup.sh and run_autograder read it.\n" + \
        "".join(f"{k}={v}\n" for k, v in values.items())


def build_bundle(problem: Problem, out: Path, wheel: Path | None = None, cell_tag: str | None = None) -> list[str]:
    """Write the bundle for ``problem`` (with its drawn suite, if it has one) to ``out``;
    returns the names it holds."""
    if cell_tag is not None and not TAG_RE.match(cell_tag):
        raise ExportError("--cell-tag may hold letters, digits, '_', '.' and '-' only (64 at most)")
    try:
        refuse_stripped(problem, "export with --suite DIR")
    except SuiteError as exc:
        raise ExportError(str(exc)) from None
    if not problem.cases:
        raise ExportError(f"{problem.id} has no cases to grade")
    templates = files("grader.export").joinpath("templates")
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="jaxjudge-export-") as tmp:
        whl = judge_wheel(Path(tmp), wheel)
        bundled = bundled_problem(problem, Path(tmp))
        entries: list[tuple[str, bytes, int]] = [
            ("setup.sh", templates.joinpath("setup.sh").read_bytes(), EXECUTABLE),
            ("run_autograder", templates.joinpath("run_autograder").read_bytes(), EXECUTABLE),
            ("jaxjudge.env", _env(bundled, whl, cell_tag, problem.suite).encode(), REGULAR),
            ("constraints.txt", constraints().encode(), REGULAR),
            (whl.name, whl.read_bytes(), REGULAR),
        ]
        entries += [(name, path.read_bytes(), REGULAR) for name, path in _problem_files(problem, bundled)]
        fd, part = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
        os.close(fd)
        try:
            with zipfile.ZipFile(part, "w", zipfile.ZIP_DEFLATED) as z:
                for name, data, mode in entries:
                    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                    info.external_attr, info.compress_type = mode, zipfile.ZIP_DEFLATED
                    z.writestr(info, data)
            os.replace(part, out)
            part = ""
        finally:
            if part and os.path.exists(part):
                os.unlink(part)
    return [name for name, _, _ in entries]
