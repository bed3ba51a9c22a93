"""What ``grader validate`` proved, kept so that an unchanged problem is not proved again.

A proof is kept only for a problem with no failing finding, under a key that covers
everything its findings depend on: every file of the problem's folder (the editorial
too), every file of its corpus under ``submissions/`` (when they are graded), the
judge's own code (every module of ``grader`` but the service), the versions of Python,
JAX, jaxlib and NumPy, and whether the mutants were asked for. Change any of them and
the key changes: the problem is proved again. A failure is never kept, so it is always
proved again. ``validate --fresh`` proves everything again and keeps what passes.

The proofs live in the judge's cache (``$JAXJUDGE_CACHE/validated``), one JSON file per
problem, written to a temporary file and renamed."""
from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path

from ..common.files import cache_dir, write_atomic
from .context import Finding

FORMAT = 1  # the stored layout; a proof in another layout is proved again
_PACKAGE = Path(__file__).resolve().parent.parent  # grader/


@dataclass(frozen=True)
class Proof:
    key: str
    findings: list[Finding]
    mutation_row: list[str] | None  # the problem's row of the mutation table, when mutants were asked for


def _tree(h: "hashlib._Hash", folder: Path) -> None:
    if not folder.is_dir():
        h.update(b"(none)\0")
        return
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        h.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes() + b"\0")


def _judge_code() -> str:
    """A hash of the judge's own code: every module of ``grader`` but the service, which
    no validate check runs."""
    h = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        rel = path.relative_to(_PACKAGE)
        if rel.parts[0] == "service" or "__pycache__" in rel.parts:
            continue
        h.update(str(rel).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _versions() -> str:
    found = []
    for name in ("jax", "jaxlib", "numpy"):
        try:
            found.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name}=absent")
    return f"python={sys.version}; " + "; ".join(found)


def proof_key(problem_dir: Path, corpus_dir: Path | None, mutants: bool) -> str:
    """The key of a proof of ``problem_dir`` (its corpus graded when ``corpus_dir`` is given)."""
    h = hashlib.sha256(f"format {FORMAT}; mutants {mutants}; {_versions()}; judge {_judge_code()}\0".encode())
    _tree(h, problem_dir)
    h.update(b"corpus\0")
    if corpus_dir is not None:
        _tree(h, corpus_dir)
    return h.hexdigest()


class ProofStore:
    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or cache_dir("validated")

    def _path(self, problem_id: str) -> Path:
        return self.folder / f"{problem_id}.json"

    def get(self, problem_id: str, key: str) -> Proof | None:
        """The proof kept under ``key``, if any (an unreadable file is no proof)."""
        try:
            doc = json.loads(self._path(problem_id).read_text())
            if doc.get("format") != FORMAT or doc.get("key") != key:
                return None
            return Proof(key, [Finding(**f) for f in doc["findings"]], doc.get("mutation_row"))
        except (OSError, ValueError, TypeError, KeyError):
            return None

    def put(self, problem_id: str, proof: Proof) -> None:
        """Keep ``proof``, unless one of its findings failed."""
        if any(f.status == "fail" for f in proof.findings):
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        doc = {"format": FORMAT, "key": proof.key, "findings": [asdict(f) for f in proof.findings],
               "mutation_row": proof.mutation_row}
        write_atomic(self._path(problem_id), json.dumps(doc, indent=1))
