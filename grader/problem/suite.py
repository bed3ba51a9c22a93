"""Secret suites: the hidden cases a deployment draws from a secret of its own, so that a
public catalogue (the package, the repository) never holds the hidden cases it grades with.

A deployment keeps one *suite secret* (``Secret``): 32 random bytes in a file only its
owner reads, created at first use. Nothing shows the secret; reports and logs name the
suite by its *id*, a hash of the secret. From the secret and a problem's id come the
seeds of that problem's draws (``Secret.seed``): the first draw, and the next ones when
a draw fails the strength gate (``authoring.suites``).

A drawn suite repeats the shipped hidden suite's plan (``plan``): a case the generator
made (``gen_s<seed>_<index>``) is drawn anew at the same index, so the same scenario; a
case made from one of the generator's recipes is drawn anew from that recipe. It lives
in a folder of its own (``SuiteStore``), keyed by the suite id and the problem's
revision (``revision``), and ``with_suite`` puts it in place of the shipped hidden cases.

A package built without its hidden cases (``JAXJUDGE_WITHOUT_HIDDEN=1``, see ``common/build_hook.py``)
keeps each problem's plan alone, in ``cases/hidden.plan.json`` (``PLAN_FILE``): the ids and
recipes of the hidden cases, never their inputs or outputs. Such a problem is *stripped*
(``stripped``): it draws from the plan file and grades only with a drawn suite.
"""
from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import os
import re
import secrets
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterator

from ..common.files import write_atomic
from .cases import Case, Problem, read_case
from .meta import ProblemError

SECRET_BYTES = 32
PLAN_FILE = "hidden.plan.json"  # under cases/; common/build_hook.py writes the same format
# A generated case: shipped as ``gen_s<seed>_<index>`` (``grader generate``), drawn as ``gen_<index>``.
_GENERATED = re.compile(r"^gen_(?:s-?\d+_)?(\d+)$")


def generated_index(case_id: str) -> int | None:
    """The generator index a generated case's id names; None for any other case."""
    m = _GENERATED.match(case_id)
    return int(m.group(1)) if m else None


class SuiteError(Exception):
    """A secret or a drawn suite that cannot be used; the message says why and what to do."""


@dataclass(frozen=True)
class Secret:
    """A deployment's suite secret. ``repr`` never shows the bytes."""

    value: bytes

    def __repr__(self) -> str:
        return f"Secret(id={self.id})"

    @property
    def id(self) -> str:
        """The suite's public name: what reports and logs say instead of the secret."""
        return hashlib.sha256(b"jaxjudge suite id\0" + self.value).hexdigest()[:16]

    def seed(self, problem_id: str, attempt: int = 0) -> int:
        """The generator seed of ``problem_id``'s draw number ``attempt`` (0: the first)."""
        digest = hmac.new(self.value, f"{problem_id}\0{attempt}".encode(), hashlib.sha256).digest()
        return int.from_bytes(digest[:8], "big") >> 1  # non-negative, as numpy's seeds are


def load_secret(path: Path, create: bool = False) -> Secret:
    """The secret in ``path`` (hex text); with ``create``, a new one is written there first
    when the file does not exist (readable by its owner only, written whole or not at all)."""
    if create and not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        # write_atomic's temp file is the owner's alone (mkstemp), and keeps that mode.
        write_atomic(path, secrets.token_hex(SECRET_BYTES) + "\n", exclusive=True)
    try:
        text = path.read_text(encoding="ascii").strip()
        value = bytes.fromhex(text)
    except FileNotFoundError:
        raise SuiteError(f"{path}: no suite secret here (create one with grader suite draw)") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SuiteError(f"{path}: not a suite secret ({type(exc).__name__})") from None
    if len(value) < 16:
        raise SuiteError(f"{path}: a suite secret has at least 16 bytes (32 hex digits)")
    if os.name == "posix" and path.stat().st_mode & 0o077:
        raise SuiteError(f"{path}: readable by others; chmod 600 it")
    return Secret(value)


@dataclass(frozen=True)
class Slot:
    """One case of the shipped hidden suite, as a draw repeats it: the generator at
    ``index``, or recipe ``recipe``."""

    id: str
    index: int | None = None
    recipe: str | None = None


def plan(problem: Problem) -> list[Slot]:
    """What a drawn suite must hold: one slot per shipped hidden case. A hidden case that is
    neither generated nor made from a recipe cannot be drawn (``SuiteError``), nor can a
    problem whose metadata says ``[suite] drawable = false``."""
    if not problem.meta.drawable:
        raise SuiteError(f"{problem.id}: its problem.toml says [suite] drawable = false, so a deployment cannot "
                         "draw its hidden suite (and does not grade it with the shipped one)")
    hidden = [(c.id, c.recipe) for c in problem.cases if c.hidden]
    if not hidden and problem.suite is None:
        hidden = shipped_plan(problem) or []
    slots = []
    for cid, recipe in hidden:
        index = generated_index(cid)
        if recipe:
            slots.append(Slot(cid, recipe=recipe))
        elif index is not None:
            slots.append(Slot(cid, index=index))
        else:
            raise SuiteError(f"{problem.id}: hidden case {cid} was made by hand and names no recipe, so a "
                             "secret suite cannot draw its like (give it one: see the authoring guide)")
    return slots


def plan_path(problem: Problem) -> Path:
    return problem.root / "cases" / PLAN_FILE


def plan_doc(problem: Problem) -> dict:
    """The plan file of ``problem``'s hidden cases, as a build without them writes it."""
    return {"cases": [{"id": c.id, **({"recipe": c.recipe} if c.recipe else {})}
                      for c in problem.cases if c.hidden]}


def shipped_plan(problem: Problem) -> list[tuple[str, str | None]] | None:
    """The (id, recipe) pairs of ``problem``'s plan file, or None when it has none."""
    path = plan_path(problem)
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        out = [(str(c["id"]), c.get("recipe")) for c in doc["cases"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SuiteError(f"{path}: not a plan of hidden cases ({type(exc).__name__})") from None
    if not all(r is None or isinstance(r, str) for _, r in out):
        raise SuiteError(f"{path}: a case's recipe is a name")
    return out


def stripped(problem: Problem) -> bool:
    """A problem installed without its hidden cases: its plan file and none of them. It
    grades only with a drawn suite."""
    return problem.suite is None and not any(c.hidden for c in problem.cases) and plan_path(problem).is_file()


def hidden_count(problem: Problem) -> int:
    """How many hidden cases grade ``problem``: its own (shipped or drawn), or, installed
    without them and read before its suite is drawn, as many as its plan holds (a draw
    repeats the plan)."""
    count = sum(c.hidden for c in problem.cases)
    if count or problem.suite is not None:
        return count
    try:
        return len(shipped_plan(problem) or [])
    except SuiteError:
        return 0


def refuse_stripped(problem: Problem,
                    how: str = "grade with it (--suite DIR; in the Python API, suite=DIR)") -> Problem:
    """``problem``, unless it is stripped and has no drawn suite: then ``SuiteError``, whose
    message says to draw a suite and how to pass it (``how``). What every grade of all
    of a problem's cases passes through, so that none grades with no hidden cases."""
    if stripped(problem):
        # Public cases alone would accept what the hidden ones reject: no verdict rather than a weak one.
        raise SuiteError(f"{problem.id}: this installation ships without its hidden cases (built with "
                         f"JAXJUDGE_WITHOUT_HIDDEN=1), so it grades only with a drawn suite: grader suite draw "
                         f"--suite DIR, then {how}")
    return problem


def suite_id(folder: Path) -> str:
    """The id of the suite a deployment folder's secret names (what ``load_suite`` grades with)."""
    return load_secret(Path(folder) / "secret").id


def revision(problem: Problem) -> str:
    """What a draw depends on: the problem's files and public cases, and the shipped hidden
    suite's plan (not its data). A drawn suite of another revision is drawn again."""
    h = hashlib.sha256(b"suite revision 1\0")
    for name in ("problem.toml", "reference.py", "oracle.py", "generator.py"):
        path = problem.root / name
        h.update(name.encode() + b"\0" + (path.read_bytes() if path.is_file() else b"") + b"\0")
    for case in problem.cases:
        if not case.hidden:
            h.update(case.path.read_bytes())
    h.update(json.dumps([(s.index, s.recipe) for s in plan(problem)]).encode())
    return h.hexdigest()[:20]


class SuiteStore:
    """Drawn suites under one folder: ``<root>/<suite id>/<problem>/<revision>/``, each
    with its ``hidden/*.json`` cases and ``suite.json`` (how it was drawn and gated)."""

    def __init__(self, root: Path, secret: Secret) -> None:
        self.root, self.secret = Path(root), secret

    def folder(self, problem: Problem) -> Path:
        return self.root / self.secret.id / problem.id / revision(problem)

    @contextmanager
    def drawing(self, problem: Problem, waiting: Callable[[], None] = lambda: None) -> Iterator[None]:
        """Held while ``problem``'s suite is drawn: two processes drawing into one folder (two
        servers, a server and ``grader suite draw``) take turns, and ``waiting`` is called
        when another holds it. An advisory lock of the OS, let go when its holder dies."""
        folder = self.folder(problem)
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / "draw.lock", "a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                waiting()
                fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def manifest(self, problem: Problem) -> dict | None:
        """The drawn suite's record, or None when this revision has none that passed."""
        try:
            doc = json.loads((self.folder(problem) / "suite.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return doc if isinstance(doc, dict) and doc.get("passed") is True else None

    def cases(self, problem: Problem) -> list[Case]:
        """The drawn hidden cases, in the plan's order; ``SuiteError`` when none passed."""
        doc = self.manifest(problem)
        if doc is None:
            raise SuiteError(f"{problem.id}: suite {self.secret.id} has no drawn suite for this revision of the "
                             "problem; run grader suite draw")
        folder = self.folder(problem) / "hidden"
        try:
            return [read_case(folder / f"{cid}.json", "hidden") for cid in doc["cases"]]
        except (KeyError, TypeError, ProblemError) as exc:
            raise SuiteError(f"{problem.id}: the drawn suite in {folder} is damaged ({exc}); draw it again") from None


def with_suite(problem: Problem, hidden: list[Case], suite_id: str) -> Problem:
    """``problem`` graded with ``hidden`` (of suite ``suite_id``) in place of its shipped
    hidden cases."""
    return replace(problem, cases=[c for c in problem.cases if not c.hidden] + list(hidden), suite=suite_id)


def load_suite(problem: Problem, folder: Path) -> Problem:
    """``problem`` with its drawn suite from the deployment folder ``folder`` (its
    ``secret`` and its drawn suites): ``grader grade/batch --suite``."""
    store = SuiteStore(Path(folder), load_secret(Path(folder) / "secret"))
    return with_suite(problem, store.cases(problem), store.secret.id)
