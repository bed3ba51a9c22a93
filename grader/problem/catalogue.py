"""Where problems are found. Folders are searched in this order:

1. author folders: ``grader --problems DIR`` (repeatable) and ``$JAXJUDGE_PROBLEMS`` (a
   list of folders separated by ``os.pathsep``), in that order. An id found in two of them
   is an error that names both folders;
2. when no author folder is given, the nearest ``problems/`` folder from the working
   directory upwards (an author's project, or this checkout);
3. the built-in catalogue that travels with the package: ``grader/catalogue`` in an
   installed wheel (``problems/`` mapped into the package at build time), the checkout's
   ``problems/`` in an editable install.

A problem in an author folder shadows a built-in problem of the same id, so an author
can work on a copy of one."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from .cases import Problem, load_problem
from .meta import NAME_RE, ProblemError

PROBLEMS_ENV = "JAXJUDGE_PROBLEMS"
_PACKAGE = Path(__file__).resolve().parent.parent


def builtin_root() -> Path | None:
    """The catalogue that ships with the judge, or None when there is none."""
    if (_PACKAGE / "catalogue").is_dir():
        return _PACKAGE / "catalogue"
    checkout = _PACKAGE.parent
    if (checkout / "problems").is_dir() and (checkout / "pyproject.toml").is_file():
        return checkout / "problems"
    return None


def is_installed_catalogue(folder: Path) -> bool:
    """True for the copy inside an installed package (never a place to write problems)."""
    return folder.resolve() == (_PACKAGE / "catalogue").resolve()


def author_roots() -> list[Path]:
    return [Path(p) for p in os.environ.get(PROBLEMS_ENV, "").split(os.pathsep) if p.strip()]


def add_author_roots(folders: tuple[str, ...] | list[str]) -> None:
    """Put ``folders`` (``--problems``) first in ``$JAXJUDGE_PROBLEMS``, as absolute paths,
    so that every process of this command searches them too."""
    for folder in folders:
        if not Path(folder).is_dir():
            raise ProblemError(folder, "no such problem folder (--problems)")
    if folders:
        old = os.environ.get(PROBLEMS_ENV, "")
        os.environ[PROBLEMS_ENV] = os.pathsep.join([*(str(Path(f).resolve()) for f in folders),
                                                    *([old] if old else [])])


def _local_root(start: Path | None = None) -> Path | None:
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "problems").is_dir():
            return folder / "problems"
    return None


def search_path(start: Path | None = None) -> list[Path]:
    """Every folder searched, first first, each once."""
    local = _local_root(start)
    roots = author_roots() or ([local] if local else [])
    builtin = builtin_root()
    out: list[Path] = []
    for folder in [*roots, *([builtin] if builtin else [])]:
        if folder.resolve() not in {f.resolve() for f in out}:
            out.append(folder)
    return out


def problems_root(start: Path | None = None) -> Path:
    """The folder authoring commands (``grader new``) write to: the first author folder,
    else the nearest ``problems/`` upwards, else ``./problems``. Never the built-in
    catalogue: not the copy inside an installed package, nor (for an editable install
    used from elsewhere) the checkout's."""
    local = _local_root(start)
    for folder in [*author_roots(), *([local] if local else [])]:
        if not is_installed_catalogue(folder):
            return folder
    return (start or Path.cwd()) / "problems"


def _ids(folder: Path) -> list[str]:
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if NAME_RE.match(p.name) and (p / "problem.toml").is_file())


def problem_folder(problem_id: str, start: Path | None = None) -> Path:
    """The folder of ``problem_id``: the first found along ``search_path``. Found in two
    author folders, it is an error that names both."""
    if not NAME_RE.match(problem_id):
        raise ProblemError(problem_id, "a problem id is lower case letters, digits and underscores")
    roots = search_path(start)
    hits = [root / problem_id for root in roots if (root / problem_id / "problem.toml").is_file()]
    authors = {f.resolve() for f in author_roots()}
    clash = [h for h in hits if h.parent.resolve() in authors]
    if len(clash) > 1:
        raise ProblemError(problem_id, f"found in two problem folders: {clash[0].parent} and {clash[1].parent}; "
                                       f"rename one, or leave a folder out of --problems/{PROBLEMS_ENV}")
    if not hits:
        searched = ", ".join(str(f) for f in roots) or "no problem folder"
        raise ProblemError(problem_id, f"no such problem (searched {searched})")
    return hits[0]


_suite_folder: Path | None = None  # a deployment's drawn suites (``use_suite``)


def use_suite(folder: Path | None) -> None:
    """From now on, ``find_problem`` gives each problem with the hidden cases this process's
    deployment drew (``suite.load_suite``), and refuses a problem without them: what
    ``grader serve --suite`` sets once at its start. None: the shipped hidden cases."""
    global _suite_folder
    _suite_folder = folder


def suite_in_use() -> Path | None:
    """The deployment folder ``use_suite`` set, whose drawn suites every grade uses; None:
    the shipped hidden cases."""
    return _suite_folder


def find_problem(problem_id: str, root: Path | None = None) -> Problem:
    if root is not None:  # one folder only, as before
        if not NAME_RE.match(problem_id):
            raise ProblemError(problem_id, "a problem id is lower case letters, digits and underscores")
        return load_problem(root / problem_id)
    problem = load_problem(problem_folder(problem_id))
    if _suite_folder is None:
        return problem
    from .suite import SuiteError, load_suite

    try:
        return load_suite(problem, _suite_folder)
    except SuiteError as exc:
        raise ProblemError(problem_id, str(exc)) from None


def all_problem_ids(root: Path | None = None) -> list[str]:
    """The ids in ``root``, or along the whole search path."""
    return _ids(root) if root is not None else sorted({pid for r in search_path() for pid in _ids(r)})


def content_hash(problem: Problem) -> str:
    """A short hash of everything in the problem folder that can change a verdict:
    metadata, statement, reference, oracles, generator and every case file. Reports
    record it, so a verdict says which version of the problem produced it. The
    editorial is left out: rewriting it changes no verdict, so it starts no rejudge."""
    h = hashlib.sha256()
    shipped_hidden = problem.cases_dir("hidden")
    files = [p for p in problem.root.rglob("*")
             if p.is_file() and "__pycache__" not in p.parts and p != problem.editorial_path
             and not (problem.suite and p.is_relative_to(shipped_hidden))]
    for path in sorted(files):
        h.update(str(path.relative_to(problem.root)).encode() + b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    if problem.suite:  # a drawn suite's cases stand for the shipped hidden ones: a new draw is a new version
        h.update(b"suite\0" + problem.suite.encode())
        for case in problem.cases:
            if case.hidden:
                h.update(b"\0" + case.id.encode() + b"\0" + case.path.read_bytes())
    return h.hexdigest()[:16]
