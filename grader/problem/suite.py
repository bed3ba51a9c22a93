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

A drawn suite is *sealed*: each case file carries a MAC under a key derived from the
secret (``Secret.seal``), bound to the problem, the revision and the case's id, and the
record (``suite.json``) carries the cases' MACs and a MAC of its own. A suite whose record
or any case fails its MAC (changed on disk, moved, or drawn before suites were sealed) is
refused and logged, and counts as not drawn, so the next draw draws it again. Its folders
are its owner's alone, as its files are.

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
import logging
import os
import secrets
import shutil
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterator

from ..common.files import write_atomic
from .cases import Case, Problem, read_case
from .meta import ProblemError
from .plan import (PLAN_FILE, Slot, SuiteError, generated_index, hidden_count, plan, plan_doc, plan_path,
                   refuse_stripped, shipped_plan, stripped)

# The plan's names are the suite's too: what a suite is drawn from (``plan``) and the rest.
__all__ = ["PLAN_FILE", "Slot", "SuiteError", "generated_index", "hidden_count", "plan", "plan_doc", "plan_path",
           "refuse_stripped", "shipped_plan", "stripped", "Secret", "SuiteStore", "load_secret", "load_suite",
           "revision", "suite_id", "with_suite"]

log = logging.getLogger("grader")

SECRET_BYTES = 32
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

    def seal(self, fields: tuple[str, ...], data: bytes) -> str:
        """The MAC (hex) of ``data`` bound to ``fields`` (what it is and where it belongs),
        so that sealed bytes moved to another problem, revision or case fail it."""
        # A key of its own: no seal is a seed or an id, whatever the fields.
        key = hmac.new(self.value, b"jaxjudge suite seal\0", hashlib.sha256).digest()
        # JSON escapes NUL, so the header ends at the first one: no two (fields, data) share a message.
        return hmac.new(key, json.dumps(fields).encode() + b"\0" + data, hashlib.sha256).hexdigest()


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


class _Unsealed(Exception):
    """A drawn suite whose record or a case fails its MAC; the message names the file."""


class SuiteStore:
    """Drawn suites under one folder: ``<root>/<suite id>/<problem>/<revision>/``, each
    with its ``hidden/*.json`` cases and ``suite.json`` (how it was drawn and gated, and
    the seals: ``macs``, one per case, and ``mac``, the record's own). Every folder from
    ``<suite id>`` down is its owner's alone (0o700)."""

    def __init__(self, root: Path, secret: Secret) -> None:
        self.root, self.secret = Path(root), secret

    def folder(self, problem: Problem) -> Path:
        return self.root / self.secret.id / problem.id / revision(problem)

    def _owned(self, folder: Path) -> Path:
        """``folder`` made, it and each folder between it and the root owner-only, those
        made earlier with wider modes tightened."""
        parts = folder.relative_to(self.root).parts
        for depth in range(1, len(parts) + 1):
            path = self.root.joinpath(*parts[:depth])
            path.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(path, 0o700)  # mkdir's mode passes through the umask, and a folder made earlier kept its own
        return folder

    @contextmanager
    def drawing(self, problem: Problem, waiting: Callable[[], None] = lambda: None) -> Iterator[None]:
        """Held while ``problem``'s suite is drawn: two processes drawing into one folder (two
        servers, a server and ``grader suite draw``) take turns, and ``waiting`` is called
        when another holds it. An advisory lock of the OS, let go when its holder dies."""
        folder = self._owned(self.folder(problem))
        with open(os.open(folder / "draw.lock", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                waiting()
                fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def write_cases(self, problem: Problem, texts: dict[str, str]) -> dict[str, str]:
        """``problem``'s drawn cases (id: the case file's text) in place of any drawn before;
        their MACs, by id, for ``write_record``."""
        folder = self.folder(problem)
        shutil.rmtree(folder / "hidden", ignore_errors=True)
        hidden = self._owned(folder / "hidden")
        macs = {}
        for cid, text in texts.items():
            write_atomic(hidden / f"{cid}.json", text)
            # The bytes written, not read back: a case changed while the draw is gated fails its seal.
            macs[cid] = self._case_mac(problem.id, folder.name, cid, text.encode("utf-8"))
        return macs

    def write_record(self, problem: Problem, doc: dict, macs: dict[str, str]) -> None:
        """The suite's record ``doc`` (its ``cases`` among them, sealed by ``macs`` from
        ``write_cases``), sealed itself and written last: a folder without a passing,
        sealed ``suite.json`` is no suite."""
        folder = self._owned(self.folder(problem))
        doc = {**doc, "macs": {cid: macs[cid] for cid in doc["cases"]}}
        doc["mac"] = self._record_mac(problem.id, folder.name, doc)
        write_atomic(folder / "suite.json", json.dumps(doc, indent=1) + "\n")

    def _case_mac(self, problem_id: str, rev: str, case_id: str, data: bytes) -> str:
        return self.secret.seal(("case", problem_id, rev, case_id), data)

    def _record_mac(self, problem_id: str, rev: str, doc: dict) -> str:
        body = {k: v for k, v in doc.items() if k != "mac"}
        return self.secret.seal(("record", problem_id, rev),
                                json.dumps(body, sort_keys=True, separators=(",", ":")).encode())

    def manifest(self, problem: Problem) -> dict | None:
        """The drawn suite's record, or None when this revision has none that passed and is
        sealed (one that fails its seal is logged)."""
        try:
            opened = self._open(problem)
        except _Unsealed:
            return None
        return opened[1] if opened else None

    def cases(self, problem: Problem) -> list[Case]:
        """The drawn hidden cases, in the plan's order; ``SuiteError`` when none passed, or
        the suite fails its seal."""
        missing = f"{problem.id}: suite {self.secret.id} has no drawn suite for this revision of the problem"
        try:
            opened = self._open(problem)
        except _Unsealed:
            # The file's path stays in the log: this message can reach a learner's report.
            raise SuiteError(f"{missing} that passes its seal (the log names the file that fails it); run grader "
                             "suite draw") from None
        if opened is None:
            raise SuiteError(f"{missing}; run grader suite draw")
        folder, doc, data = opened
        folder = folder / "hidden"
        try:
            return [read_case(folder / f"{cid}.json", "hidden", data[cid]) for cid in doc["cases"]]
        except ProblemError as exc:
            raise SuiteError(f"{problem.id}: the drawn suite in {folder} is damaged ({exc}); draw it again") from None

    def _open(self, problem: Problem) -> tuple[Path, dict, dict[str, bytes]] | None:
        """The folder and passing record of ``problem``'s drawn suite and its cases' bytes, each checked
        against its MAC; None when there is no passing record. ``_Unsealed`` (logged) when
        the record or a case fails its seal."""
        folder = self.folder(problem)
        record = folder / "suite.json"
        try:
            doc = json.loads(record.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(doc, dict) or doc.get("passed") is not True:
            return None
        try:
            return folder, doc, self._unseal(problem.id, folder, doc)
        except _Unsealed as exc:
            # A line a server reading ``grader suite draw`` does not take for the problem's outcome.
            log.warning("suite %s: the drawn suite of %s is refused, as if never drawn (the next draw draws it "
                        "again): %s",
                        self.secret.id, problem.id, exc)
            raise

    def _unseal(self, problem_id: str, folder: Path, doc: dict) -> dict[str, bytes]:
        record = folder / "suite.json"
        mac = doc.get("mac")
        if mac is None:
            raise _Unsealed(f"{record} has no MAC: it was drawn before drawn suites were sealed")
        if not (isinstance(mac, str) and hmac.compare_digest(mac, self._record_mac(problem_id, folder.name, doc))):
            raise _Unsealed(f"{record} fails its MAC (changed on disk, or not this suite's)")
        data = {}
        for cid in doc["cases"]:
            path = folder / "hidden" / f"{cid}.json"
            try:
                data[cid] = path.read_bytes()
            except OSError as exc:
                raise _Unsealed(f"{path} cannot be read ({type(exc).__name__})") from None
            if not hmac.compare_digest(doc["macs"][cid], self._case_mac(problem_id, folder.name, cid, data[cid])):
                raise _Unsealed(f"{path} fails its MAC (changed on disk, or another case's)")
        return data


def with_suite(problem: Problem, hidden: list[Case], suite_id: str) -> Problem:
    """``problem`` graded with ``hidden`` (of suite ``suite_id``) in place of its shipped
    hidden cases."""
    return replace(problem, cases=[c for c in problem.cases if not c.hidden] + list(hidden), suite=suite_id)


def load_suite(problem: Problem, folder: Path) -> Problem:
    """``problem`` with its drawn suite from the deployment folder ``folder`` (its
    ``secret`` and its drawn suites): ``grader grade/batch --suite``."""
    store = SuiteStore(Path(folder), load_secret(Path(folder) / "secret"))
    return with_suite(problem, store.cases(problem), store.secret.id)
