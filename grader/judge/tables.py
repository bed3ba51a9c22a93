"""Where the tables a problem's grades build once live (the dependence probe's table, each
wrong answer's misconception entry: ``probe_table``, ``mistakes``; and the shipped suite's
mutant kills that a draw's strength gate compares with: ``authoring.mutation.kills``), and
the copies the built-in catalogue ships with the package.

Each table is a pure function of the problem's version, the judge's and JAX's, so it is
built once and kept where every process that grades the problem finds it:

- A problem graded with a deployment's drawn suite (``grader serve --suite DIR``, or
  ``grade``/``warm --suite DIR``) keeps its tables beside that suite, in
  ``DIR/<suite id>/<problem>/<revision>/tables/``: every server using ``DIR`` shares them,
  and they are as private as the suite they were built from.
- Any other problem keeps them in the judge's cache (``$JAXJUDGE_CACHE``): servers pointed
  at one folder share it.
- The built-in catalogue ships its tables (``problems/_tables``, written by
  ``grader warm --ship``, with a manifest of each file's SHA-256). A table missing from the
  cache is copied from there, but only when the manifest was built by this judge version
  and this JAX release, for this version of the problem, and the file's bytes match their
  SHA-256. A shipped table that is stale or altered is never used: the table is built
  anew, and the log says why, once per problem.

Nothing here is readable by a sandboxed child: the judge's cache is not, a suite folder is
its owner's alone, and the shipped tables lie in the catalogue, which the sandbox hides.
"""
from __future__ import annotations

import hashlib
import json
import logging
import shutil
import tempfile
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Literal

from .. import __version__
from ..common.files import cache_dir, write_atomic
from ..problem import Problem
from ..problem.catalogue import builtin_root, content_hash

log = logging.getLogger("grader.tables")

Kind = Literal["probe", "mistakes", "kills"]
SHIPPED = "_tables"  # under the catalogue: not a problem id (ids start with a letter)
MANIFEST = "manifest.json"
FORMAT = 1

_said: set[tuple[str, str]] = set()  # (problem, why) already logged in this process
_taken: set[Path] = set()  # tables this process copied from the shipped ones


def table_dir(problem: Problem, kind: Kind) -> Path:
    """The folder ``problem``'s tables of ``kind`` are kept in (see the module's text):
    beside the drawn suite its hidden cases come from, else the judge's cache."""
    if problem.suite:
        drawn = next((c.path.parent.parent for c in problem.cases if c.hidden), None)
        if drawn is not None and (drawn / "suite.json").is_file():  # the suite's own revision folder
            return drawn / "tables" / kind
    return cache_dir(kind)


def runtime() -> dict[str, str]:
    """What a table depends on besides the problem: the judge's version and JAX's (read
    from the installed packages' metadata: the judge's process never imports JAX)."""
    out = {"judge": __version__}
    for name in ("jax", "jaxlib"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "none"
    return out


def shipped_root() -> Path | None:
    root = builtin_root()
    return root / SHIPPED if root is not None else None


@lru_cache(maxsize=1)
def _manifest() -> dict | None:
    root = shipped_root()
    if root is None:
        return None
    try:
        doc = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and doc.get("format") == FORMAT else None


def _say(problem: Problem, why: str) -> None:
    if (problem.id, why) not in _said:
        _said.add((problem.id, why))
        log.warning("%s: the shipped tables are not used, %s; they are built anew", problem.id, why)


def _builtin(problem: Problem) -> bool:
    root = builtin_root()
    return problem.suite is None and root is not None and problem.root.resolve().parent == root.resolve()


def take_shipped(problem: Problem, kind: Kind, target: Path) -> bool:
    """Copy the shipped table that ``target`` (a path in ``table_dir``) names into place;
    False when there is none to use (not a built-in problem, none shipped, or one that is
    stale or altered: logged)."""
    if not _builtin(problem):
        return False
    doc = _manifest()
    root = shipped_root()
    if doc is None or root is None:
        return False
    built_by = doc.get("runtime", {})
    if built_by != runtime():
        _say(problem, f"stale: built by {_versions(built_by)}, this is {_versions(runtime())}")
        return False
    entry = doc.get("problems", {}).get(problem.id)
    if not isinstance(entry, dict):
        return False
    if entry.get("content") != content_hash(problem):
        _say(problem, "stale: the problem changed since they were built (grader warm --ship builds them again)")
        return False
    rel = f"{kind}/{target.relative_to(table_dir(problem, kind)).as_posix()}"
    digest = entry.get("files", {}).get(rel)
    if digest is None:
        return False
    try:
        data = (root / rel).read_bytes()
    except OSError:
        _say(problem, f"{rel} is missing")
        return False
    if hashlib.sha256(data).hexdigest() != digest:
        _say(problem, f"altered: {rel} does not match its SHA-256 in the manifest")
        return False
    try:
        write_atomic(target, data)
    except OSError:
        return False  # a read-only cache: built in memory instead
    _taken.add(target)
    return True


def taken_from_shipped(target: Path) -> bool:
    """``target`` was copied from the shipped tables by this process."""
    return target in _taken


def _versions(built: dict) -> str:
    return ", ".join(f"{k} {built.get(k, '?')}" for k in ("judge", "jax", "jaxlib"))


def ship(problems: list[tuple[Problem, dict[Kind, list[Path]]]], root: Path) -> Path:
    """Write ``root`` (the catalogue's ``_tables``) anew from the tables built for
    ``problems``, each with its table files by kind, and the manifest last; returns the
    manifest's path. What was shipped before and is not named now is removed."""
    staging = Path(tempfile.mkdtemp(prefix=".tables.", dir=root.parent))
    try:
        doc: dict = {"format": FORMAT, "runtime": runtime(), "problems": {}}
        for problem, files in problems:
            entry: dict = {"content": content_hash(problem), "files": {}}
            for kind, paths in files.items():
                for path in paths:
                    rel = f"{kind}/{path.relative_to(table_dir(problem, kind)).as_posix()}"
                    data = path.read_bytes()
                    write_atomic(staging / rel, data)
                    entry["files"][rel] = hashlib.sha256(data).hexdigest()
            doc["problems"][problem.id] = entry
        write_atomic(staging / MANIFEST, json.dumps(doc, indent=1, sort_keys=True) + "\n")
        if root.exists():
            shutil.rmtree(root)
        staging.rename(root)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    _manifest.cache_clear()
    return root / MANIFEST
