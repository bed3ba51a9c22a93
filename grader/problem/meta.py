"""A problem's ``problem.toml``, read and checked into typed metadata.

The parser is strict: an unknown key is an error naming the file and the key.
Output check names are only syntax here; the judge resolves them to its checks.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..common.trees import Path_, flatten_spec

InputKind = Literal["array", "float", "int"]
Container = Literal["jax", "numpy", "any"]  # the array type a submission must return
Difficulty = Literal["easy", "medium", "hard"]
INPUT_KINDS: tuple[InputKind, ...] = ("array", "float", "int")
# How the dependence probe perturbs the rule's innermost transform: "scale" multiplies
# what it returns by a factor; "passes" runs a fori_loop a few passes longer (for loops
# whose result honest code may normalise, which cancels any factor).
Perturbation = Literal["scale", "passes"]
PERTURBATIONS: tuple[Perturbation, ...] = ("scale", "passes")
CONTAINERS: tuple[Container, ...] = ("jax", "numpy", "any")
DEFAULT_OUTPUT_CHECKS = ("structure", "type", "dtype", "shape", "finite", "value", "inputs_unchanged")
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_]*$")


class ProblemError(Exception):
    """A malformed problem: names the file (and key) at fault."""

    def __init__(self, where: Path | str, message: str):
        super().__init__(f"{where}: {message}")
        self.where = str(where)
        self.detail = message


@dataclass(frozen=True)
class InputLeaf:
    """One leaf of ``[inputs]``: its dotted ``path`` in the arguments, its ``kind``
    (``array``, ``float`` or ``int``), an array's ``dtype`` and ``shape`` (dimension
    names from ``[dims]`` or sizes), and the bounds ``min``/``max`` every value must
    keep."""

    path: Path_
    kind: InputKind
    dtype: str | None = None
    shape: tuple[str | int, ...] = ()
    min: float | None = None
    max: float | None = None


@dataclass(frozen=True)
class OutputLeaf:
    """One leaf of ``[outputs]``: its dotted ``path`` in the result, its ``dtype`` and
    ``shape``, the tolerances of the ``value`` check (an element passes when
    ``|got - expected| <= atol + rtol * |expected|``), and the ``container`` a
    submission must return it in (``jax``, ``numpy`` or ``any``)."""

    path: Path_
    dtype: str
    shape: tuple[str | int, ...] = ()
    atol: float = 0.0
    rtol: float = 0.0
    container: Container = "jax"


@dataclass(frozen=True)
class Limits:
    """``[limits]``: seconds per case (XLA compiles included), seconds to load the
    module, the memory limit of the sandboxed process (``RLIMIT_DATA``) and the size, in
    KB, of the output it may send back (more is ``OLE``)."""

    time_seconds: float = 10.0
    load_seconds: float = 20.0
    memory_mb: int = 1024
    output_kb: int = 1024


@dataclass(frozen=True)
class Requirements:
    """``[requirements]``: transforms that must be ``calls``-ed while running, ``nest``
    rules (``[["jax.vmap", "jax.grad"]]``: vmap applied to a function that calls grad),
    transforms to ``forbid``, outputs that ``depends`` on the transform named by
    ``depends_on`` (else the first nesting rule), checked by the dependence probe, batch
    dims along which the program must stay ``vectorized``, and ``traced``: the entry must
    run under ``jax.jit`` with traced arguments on every case."""

    calls: tuple[str, ...] = ()
    nest: tuple[tuple[str, ...], ...] = ()
    forbid: tuple[str, ...] = ()
    depends: tuple[str, ...] = ()
    depends_on: tuple[str, ...] = ()  # the transform (or nesting) those outputs must come from
    vectorized: tuple[str, ...] = ()  # batch dims along which the traced program must not grow
    traced: bool = False  # the entry must run under jax.jit with traced arguments, one trace per input shape
    perturbation: Perturbation = "scale"  # how the dependence probe perturbs the transform (see PERTURBATIONS)

    @property
    def perturbed(self) -> tuple[str, ...]:
        """The transform chain the dependence probe perturbs: ``depends_on``, else the first nesting rule."""
        return self.depends_on or (self.nest[0] if self.nest else ())


@dataclass(frozen=True)
class Entry:
    """``[entry]``: the function a submission must define and its argument names."""

    name: str
    args: tuple[str, ...]


@dataclass(frozen=True)
class Meta:
    """A whole ``problem.toml``: ``title``, ``difficulty`` (``easy``, ``medium`` or
    ``hard``), ``tags``, the ``entry`` point, ``limits``, ``requirements``, the ``dims``
    (name -> [min, max]), the input and output leaves, the output checks by name
    (``[checks] output``), the oracle functions and invariants of ``oracle.py``
    (``[oracles]``), the nested skeletons of the input and output trees, and
    ``show_reference`` (``[editorial] show_reference``, default false): the editorial
    page, which a learner opens after an accepted Submit, then shows ``reference.py``
    too, with ``editorial.md`` or alone. Neither is part of grading. ``drawable``
    (``[suite] drawable``, default true): a deployment may draw its own hidden suite
    (``problem.suite``), so every hidden case must be generated or name a recipe."""

    title: str
    difficulty: Difficulty
    tags: tuple[str, ...]
    entry: Entry
    limits: Limits
    requirements: Requirements
    dims: dict[str, tuple[int, int]]
    inputs: tuple[InputLeaf, ...]
    outputs: tuple[OutputLeaf, ...]
    output_checks: tuple[str, ...] = DEFAULT_OUTPUT_CHECKS
    oracles: tuple[str, ...] = ("oracle",)
    invariants: tuple[str, ...] = ()  # oracle.py functions returning (ok, message) per case input
    input_tree: Any = None  # nested dict skeleton of the input spec
    output_tree: Any = None
    show_reference: bool = False
    drawable: bool = True


# ---------------------------------------------------------------- metadata

_TOP_KEYS = {"title", "difficulty", "tags", "entry", "limits", "requirements", "dims",
             "inputs", "outputs", "checks", "oracles", "editorial", "suite"}
_TABLE_KEYS = {
    "entry": {"name", "args"},
    "limits": {"time_seconds", "load_seconds", "memory_mb", "output_kb"},
    "requirements": {"calls", "nest", "forbid", "depends", "depends_on", "vectorized", "traced", "perturbation"},
    "checks": {"output"},
    "oracles": {"functions", "invariants"},
    "editorial": {"show_reference"},
    "suite": {"drawable"},
}
_INPUT_LEAF_KEYS = {"kind", "dtype", "shape", "min", "max"}
_OUTPUT_LEAF_KEYS = {"dtype", "shape", "atol", "rtol", "container"}
DIFFICULTIES: tuple[Difficulty, ...] = ("easy", "medium", "hard")


def _check_keys(table: dict, allowed: set[str], where: str, file: Path) -> None:
    for key in table:
        if key not in allowed:
            raise ProblemError(file, f"unknown key '{where}{key}' (allowed: {', '.join(sorted(allowed))})")


def _need(table: dict, key: str, typ: type | tuple, where: str, file: Path) -> Any:
    if key not in table:
        raise ProblemError(file, f"missing key '{where}{key}'")
    value = table[key]
    if not isinstance(value, typ) or isinstance(value, bool) and typ in (int, float, (int, float)):
        raise ProblemError(file, f"'{where}{key}' has the wrong type ({type(value).__name__})")
    return value


def _shape(value: Any, dims: dict, where: str, file: Path) -> tuple[str | int, ...]:
    if not isinstance(value, list):
        raise ProblemError(file, f"'{where}shape' must be a list of dimension names or sizes")
    for d in value:
        if isinstance(d, str) and d not in dims:
            raise ProblemError(file, f"'{where}shape' names dimension '{d}' that [dims] does not define")
        if not isinstance(d, (str, int)) or isinstance(d, bool):
            raise ProblemError(file, f"'{where}shape' entries must be names or integers")
    return tuple(value)


def _leaf_tables(tree: dict, leaf_test, file: Path, section: str) -> list[tuple[Path_, dict]]:
    try:
        return flatten_spec(tree, leaf_test)
    except ValueError as exc:
        raise ProblemError(file, f"[{section}] {exc}") from None


def parse_meta(data: dict, file: Path) -> Meta:
    """``problem.toml``'s parsed table as typed metadata, or ``ProblemError`` naming
    ``file`` and the key at fault: unknown keys, wrong types, shapes naming undefined
    dims, inputs that are not exactly the entry's arguments, ``depends`` naming no output
    leaf or lacking a transform to perturb."""
    _check_keys(data, _TOP_KEYS, "", file)
    for name, allowed in _TABLE_KEYS.items():
        if name in data:
            if not isinstance(data[name], dict):
                raise ProblemError(file, f"'{name}' must be a table")
            _check_keys(data[name], allowed, f"{name}.", file)
    title = _need(data, "title", str, "", file)
    difficulty = _need(data, "difficulty", str, "", file)
    if difficulty not in DIFFICULTIES:
        raise ProblemError(file, f"'difficulty' must be one of {', '.join(DIFFICULTIES)}")
    tags = tuple(data.get("tags", ()))
    entry_t = _need(data, "entry", dict, "", file)
    entry = Entry(_need(entry_t, "name", str, "entry.", file),
                  tuple(_need(entry_t, "args", list, "entry.", file)))
    if not entry.name.isidentifier() or not all(isinstance(a, str) and a.isidentifier() for a in entry.args):
        raise ProblemError(file, "'entry.name' and 'entry.args' must be Python identifiers")

    lim = data.get("limits", {})
    for key, value in lim.items():
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
            raise ProblemError(file, f"'limits.{key}' must be a positive number")
    default = Limits()
    limits = Limits(float(lim.get("time_seconds", default.time_seconds)),
                    float(lim.get("load_seconds", default.load_seconds)),
                    int(lim.get("memory_mb", default.memory_mb)), int(lim.get("output_kb", default.output_kb)))

    req = data.get("requirements", {})
    for key in ("calls", "forbid", "depends", "depends_on", "vectorized"):
        if not all(isinstance(v, str) for v in req.get(key, [])):
            raise ProblemError(file, f"'requirements.{key}' must be a list of strings")
    nest = req.get("nest", [])
    if not all(isinstance(n, list) and len(n) >= 2 and all(isinstance(s, str) for s in n) for n in nest):
        raise ProblemError(file, "'requirements.nest' must be a list of lists of at least two call names")
    if not isinstance(req.get("traced", False), bool):
        raise ProblemError(file, "'requirements.traced' must be true or false")
    perturbation = req.get("perturbation", "scale")
    if perturbation not in PERTURBATIONS:
        raise ProblemError(file, f"'requirements.perturbation' must be one of {', '.join(PERTURBATIONS)}")
    requirements = Requirements(tuple(req.get("calls", ())), tuple(tuple(n) for n in nest),
                                tuple(req.get("forbid", ())), tuple(req.get("depends", ())),
                                tuple(req.get("depends_on", ())), tuple(req.get("vectorized", ())),
                                req.get("traced", False), perturbation)
    if perturbation == "passes" and requirements.perturbed[-1:] != ("jax.lax.fori_loop",):
        raise ProblemError(file, "'requirements.perturbation = \"passes\"' lengthens a fori_loop: the probe's "
                                 "transform (the last name of 'depends_on') must be jax.lax.fori_loop")

    dims: dict[str, tuple[int, int]] = {}
    for name, rng in _need(data, "dims", dict, "", file).items() if "dims" in data else []:
        if not (isinstance(rng, list) and len(rng) == 2 and all(isinstance(v, int) for v in rng)
                and 0 <= rng[0] <= rng[1]):
            raise ProblemError(file, f"'dims.{name}' must be [min, max] with 0 <= min <= max")
        dims[name] = (rng[0], rng[1])

    inputs = []
    in_tree = _need(data, "inputs", dict, "", file)
    for path, table in _leaf_tables(in_tree, lambda t: "kind" in t, file, "inputs"):
        where = "inputs." + ".".join(path) + "."
        _check_keys(table, _INPUT_LEAF_KEYS, where, file)
        kind = table["kind"]
        if kind not in INPUT_KINDS:
            raise ProblemError(file, f"'{where}kind' must be one of {', '.join(INPUT_KINDS)}")
        dtype = table.get("dtype")
        if kind == "array" and not isinstance(dtype, str):
            raise ProblemError(file, f"'{where}dtype' is required for arrays")
        for bound in ("min", "max"):
            if bound in table and (not isinstance(table[bound], (int, float)) or isinstance(table[bound], bool)):
                raise ProblemError(file, f"'{where}{bound}' must be a number")
        inputs.append(InputLeaf(path, kind, dtype, _shape(table.get("shape", []), dims, where, file),
                                table.get("min"), table.get("max")))
    if set(in_tree) != set(entry.args):
        raise ProblemError(file, f"[inputs] must describe exactly the entry arguments {list(entry.args)}")

    outputs = []
    out_tree = _need(data, "outputs", dict, "", file)
    for path, table in _leaf_tables(out_tree, lambda t: "dtype" in t, file, "outputs"):
        where = "outputs." + ".".join(path) + "."
        _check_keys(table, _OUTPUT_LEAF_KEYS, where, file)
        for tol in ("atol", "rtol"):
            v = table.get(tol, 0.0)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0 or not math.isfinite(v):
                raise ProblemError(file, f"'{where}{tol}' must be a finite number >= 0")
        container = table.get("container", "jax")
        if container not in CONTAINERS:
            raise ProblemError(file, f"'{where}container' must be jax, numpy or any")
        outputs.append(OutputLeaf(path, table["dtype"], _shape(table.get("shape", []), dims, where, file),
                                  float(table.get("atol", 0.0)), float(table.get("rtol", 0.0)), container))
    known = {".".join(o.path) for o in outputs}
    if requirements.depends and not requirements.perturbed:
        raise ProblemError(file, "'requirements.depends' needs 'depends_on' or a 'nest' rule to perturb")
    for dim in requirements.vectorized:
        if dim not in dims:
            raise ProblemError(file, f"'requirements.vectorized' names '{dim}', which [dims] does not define")
    for dep in requirements.depends:
        if dep not in known:
            raise ProblemError(file, f"'requirements.depends' names '{dep}', which is not an output leaf")

    checks = data.get("checks", {}).get("output", list(DEFAULT_OUTPUT_CHECKS))
    if not (isinstance(checks, list) and checks and all(isinstance(c, str) and NAME_RE.match(c) for c in checks)):
        raise ProblemError(file, "'checks.output' must be a non-empty list of check names")
    checks = tuple(checks)
    oracle_t = data.get("oracles", {})
    for key in ("functions", "invariants"):
        if not (isinstance(oracle_t.get(key, []), list) and all(isinstance(v, str) for v in oracle_t.get(key, []))):
            raise ProblemError(file, f"'oracles.{key}' must be a list of function names")
    oracles = tuple(oracle_t.get("functions", ("oracle",)))
    if not oracles:
        raise ProblemError(file, "'oracles.functions' names no oracle")
    show_reference = data.get("editorial", {}).get("show_reference", False)
    if not isinstance(show_reference, bool):
        raise ProblemError(file, "'editorial.show_reference' must be true or false")
    drawable = data.get("suite", {}).get("drawable", True)
    if not isinstance(drawable, bool):
        raise ProblemError(file, "'suite.drawable' must be true or false")
    return Meta(title, difficulty, tags, entry, limits, requirements, dims, tuple(inputs), tuple(outputs),
                checks, oracles, tuple(oracle_t.get("invariants", ())), in_tree, out_tree, show_reference, drawable)
