"""A problem folder: its metadata, its files and its cases.

    problem.toml      metadata (see ``meta``)
    statement.md      the statement, with worked examples
    reference.py      the reference solution (graded like any submission)
    oracle.py         independent float64 NumPy implementations, no JAX
    generator.py      seeded input generator (optional)
    editorial.md      the editorial learners read after solving (optional; not graded)
    cases/public/*.json, cases/hidden/*.json
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from ..common.verdicts import Visibility
from .inputs import input_dims, typed_input
from .meta import Meta, ProblemError, parse_meta

VISIBILITIES: tuple[Visibility, ...] = ("public", "hidden")


@dataclass
class Case:
    id: str
    visibility: Visibility
    path: Path
    input: Any
    expected: Any = None
    # The generator's recipe this case was drawn from (``RECIPES`` in generator.py): how a
    # deployment's secret suite draws a fresh case with the same edge property.
    recipe: str | None = None
    # The typed inputs and dims, bound once by ``Problem.bind``.
    _bound: tuple[dict, dict[str, int]] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def hidden(self) -> bool:
        return self.visibility == "hidden"


@dataclass
class Problem:
    """A loaded problem folder: its id, its folder (``root``), its metadata and its
    cases, public ones first. ``grader.problem.find_problem(ID)`` finds one as
    ``grader grade --problem`` does; ``grader.problem.load_problem(FOLDER)`` loads a
    folder."""

    id: str
    root: Path
    meta: Meta
    cases: list[Case] = field(default_factory=list)
    # The id of the drawn suite whose hidden cases replace the shipped ones (``suite``);
    # None: the hidden cases are the folder's own.
    suite: str | None = None

    @property
    def statement_path(self) -> Path:
        return self.root / "statement.md"

    @property
    def editorial_path(self) -> Path:
        return self.root / "editorial.md"

    @property
    def reference_path(self) -> Path:
        return self.root / "reference.py"

    @property
    def oracle_path(self) -> Path:
        return self.root / "oracle.py"

    @property
    def generator_path(self) -> Path:
        return self.root / "generator.py"

    def cases_dir(self, visibility: Visibility) -> Path:
        return self.root / "cases" / visibility

    def bind(self, case: Case) -> tuple[dict, dict[str, int]]:
        """A case's typed inputs (as the child receives them) and the dims they bind,
        checked against the constraints once: every stage of a grade reads them here."""
        if case._bound is None:
            case._bound = (typed_input(self.meta, case.input), input_dims(self.meta, case.input))
        return case._bound

    def public_cases(self) -> list[Case]:
        return [c for c in self.cases if not c.hidden]


def read_case(path: Path, visibility: Visibility, raw: bytes | None = None) -> Case:
    """The case in ``path``; ``raw``: its bytes, read already (a drawn case, parsed from
    the very bytes its MAC was checked on)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8") if raw is None else raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProblemError(path, f"not a readable JSON case: {exc}") from None
    if not isinstance(data, dict) or set(data) - {"input", "expected", "recipe"} or "input" not in data:
        raise ProblemError(path, "a case is an object with the keys 'input' and 'expected' (and 'recipe')")
    recipe = data.get("recipe")
    if recipe is not None and not (isinstance(recipe, str) and recipe.isidentifier()):
        raise ProblemError(path, "a case's 'recipe' is the name of one of the generator's RECIPES")
    return Case(path.stem, visibility, path, data["input"], data.get("expected"), recipe)


def load_problem(root: Path | str, with_cases: bool = True) -> Problem:
    root = Path(root)
    if not root.is_dir():
        raise ProblemError(root, "no such problem folder")
    meta_file = root / "problem.toml"
    try:
        data = tomllib.loads(meta_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ProblemError(meta_file, "missing (every problem needs its metadata)") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ProblemError(meta_file, f"not valid TOML: {exc}") from None
    problem = Problem(root.name, root, parse_meta(data, meta_file))
    if with_cases:
        for visibility in VISIBILITIES:
            folder = problem.cases_dir(visibility)
            for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
                problem.cases.append(read_case(path, visibility))
    return problem
