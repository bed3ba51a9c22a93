"""A problem's own Python files, which are trusted author code and run in the
judge's process: the oracles (float64 NumPy) and the input generator."""
from __future__ import annotations

import importlib.util
import zlib
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .cases import Problem
from .meta import ProblemError


def load_module(path: Path, name: str):
    if not path.is_file():
        raise ProblemError(path, "missing")
    spec = importlib.util.spec_from_file_location(f"jaxjudge_problem_{name}", path)
    if spec is None or spec.loader is None:
        raise ProblemError(path, "cannot be imported: not a Python source file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise ProblemError(path, f"cannot be imported: {type(exc).__name__}: {exc}") from None
    return module


def oracles(problem: Problem) -> dict[str, Callable]:
    module = load_module(problem.oracle_path, f"{problem.id}_oracle")
    found = {}
    for name in problem.meta.oracles:
        fn = getattr(module, name, None)
        if not callable(fn):
            raise ProblemError(problem.oracle_path, f"declares no function '{name}' (see [oracles] functions)")
        found[name] = fn
    return found


def recipes(problem: Problem) -> dict[str, Callable[[np.random.Generator], Any]]:
    """The generator's ``RECIPES``: name -> a function of an rng that returns one input with
    an edge property a hand-made case was written for ({} when it has none)."""
    if not problem.generator_path.is_file():
        return {}
    module = load_module(problem.generator_path, f"{problem.id}_generator")
    found = getattr(module, "RECIPES", {})
    if not isinstance(found, dict) or not all(isinstance(k, str) and k.isidentifier() and callable(v)
                                              for k, v in found.items()):
        raise ProblemError(problem.generator_path, "RECIPES maps names to functions of an rng")
    return dict(found)


def properties(problem: Problem) -> dict[str, Callable[[Any], bool]]:
    """The generator's ``PROPERTIES``: a scenario's or recipe's name -> a test of one input
    for the property that makes it that scenario (a distance below a bound, a value past a
    boundary). Every stored hidden case of that name must have it, and so must every case a
    deployment draws for it ({} when the generator names none)."""
    if not problem.generator_path.is_file():
        return {}
    module = load_module(problem.generator_path, f"{problem.id}_generator")
    found = getattr(module, "PROPERTIES", {})
    if not isinstance(found, dict) or not all(isinstance(k, str) and callable(v) for k, v in found.items()):
        raise ProblemError(problem.generator_path, "PROPERTIES maps scenario or recipe names to tests of an input")
    return dict(found)


def recipe_inputs(problem: Problem, recipe: str, count: int, seed: int) -> list[tuple[str, Any]]:
    """``count`` inputs from recipe ``recipe``; rng = default_rng([seed, index, crc32(name)]),
    so the same seed always gives the same cases, and no recipe shares a generator's stream."""
    fn = recipes(problem).get(recipe)
    if fn is None:
        raise ProblemError(problem.generator_path, f"has no recipe {recipe!r} in RECIPES")
    return [(f"{recipe}_s{seed}_{index:03d}", fn(np.random.default_rng([seed, index, zlib.crc32(recipe.encode())])))
            for index in range(count)]


def generated_inputs(problem: Problem, count: int, seed: int) -> list[tuple[str, Any]]:
    """``count`` inputs from the problem's generator; rng = default_rng([seed, index]),
    so the same seed always gives the same cases."""
    module = load_module(problem.generator_path, f"{problem.id}_generator")
    if not callable(getattr(module, "generate", None)):
        raise ProblemError(problem.generator_path, "defines no generate(rng, index)")
    out = []
    for index in range(count):
        rng = np.random.default_rng([seed, index])
        out.append((f"gen_s{seed}_{index:03d}", module.generate(rng, index)))
    return out
