"""Runtime evidence of the transforms a submission really uses (child side).

Each watched callable is replaced, in the modules the submission sees, by a
wrapper that records the call and its line. For function transforms the
function handed in is wrapped too, so that while JAX traces it the recorder
knows which transforms are "open": a ``jax.grad`` function entered while a
``jax.vmap`` function runs yields the nesting ``("jax.vmap", "jax.grad")``.

The same wrappers implement the dependence probe: in probe mode the outer
function of a required nesting poisons its result with NaN whenever the inner
transform ran inside it. Outputs that stay the same under poisoning were not
computed from that transform (a decoy call).
"""
from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

from .policy import SUBMISSION_FILE

# Callables whose function arguments are traced: name -> positions of those arguments.
FUNCTION_ARGS: dict[str, tuple[int, ...]] = {
    "jax.grad": (0,), "jax.value_and_grad": (0,), "jax.vmap": (0,), "jax.jit": (0,),
    "jax.jacfwd": (0,), "jax.jacrev": (0,), "jax.jacobian": (0,), "jax.hessian": (0,), "jax.jvp": (0,),
    "jax.vjp": (0,), "jax.linearize": (0,), "jax.checkpoint": (0,), "jax.remat": (0,),
    "jax.custom_vjp": (0,), "jax.custom_jvp": (0,), "jax.numpy.vectorize": (0,),
    "jax.lax.scan": (0,), "jax.lax.map": (0,), "jax.lax.fori_loop": (2,), "jax.lax.while_loop": (0, 1),
    "jax.lax.cond": (1, 2), "jax.lax.associative_scan": (0,),
}
WATCHED_BY_DEFAULT = tuple(FUNCTION_ARGS)


@dataclass
class Recorder:
    poison_pairs: frozenset[tuple[str, str]] = frozenset()
    probe: bool = False
    calls: dict[str, list[int]] = field(default_factory=dict)
    nests: set[tuple[str, ...]] = field(default_factory=set)
    entered: dict[str, int] = field(default_factory=dict)
    stack: list[str] = field(default_factory=list)

    def note_call(self, name: str) -> None:
        lines = self.calls.setdefault(name, [])
        line = _submission_line()
        if line is not None and line not in lines and len(lines) < 20:
            lines.append(line)

    def report(self) -> dict:
        return {"calls": self.calls, "nests": sorted(list(n) for n in self.nests)[:200]}


def _submission_line() -> int | None:
    frame = sys._getframe(2)
    for _ in range(30):
        if frame is None:
            return None
        if frame.f_code.co_filename == SUBMISSION_FILE:
            return frame.f_lineno
        frame = frame.f_back
    return None


def _poison(tree: Any) -> Any:
    import jax
    import jax.numpy as jnp

    def leaf(x: Any) -> Any:
        try:
            if jnp.issubdtype(jnp.result_type(x), jnp.inexact):
                return x + jnp.nan
        except TypeError:
            pass
        return x

    return jax.tree_util.tree_map(leaf, tree)


def _traced(rec: Recorder, name: str, fun: Callable) -> Callable:
    inner_names = {inner for outer, inner in rec.poison_pairs if outer == name}

    @functools.wraps(fun)
    def traced(*args: Any, **kwargs: Any) -> Any:
        rec.stack.append(name)
        rec.nests.add(tuple(rec.stack))
        rec.entered[name] = rec.entered.get(name, 0) + 1
        before = {n: rec.entered.get(n, 0) for n in inner_names}
        try:
            out = fun(*args, **kwargs)
        finally:
            rec.stack.pop()
        if rec.probe and any(rec.entered.get(n, 0) > before[n] for n in inner_names):
            out = _poison(out)
        return out

    return traced


def watch(rec: Recorder, name: str, real: Callable) -> Callable:
    positions = FUNCTION_ARGS.get(name, ())

    @functools.wraps(real)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        rec.note_call(name)
        if positions:
            args = tuple(_traced(rec, name, a) if i in positions and callable(a) else a
                         for i, a in enumerate(args))
            for key in ("fun", "f", "body_fun", "cond_fun"):
                if key in kwargs and callable(kwargs[key]):
                    kwargs[key] = _traced(rec, name, kwargs[key])
        return real(*args, **kwargs)

    return wrapper


def overrides(rec: Recorder, names: tuple[str, ...]) -> dict[str, Callable]:
    """Instrumented replacements for ``names`` (dotted, e.g. ``jax.lax.scan``)."""
    import importlib

    out: dict[str, Callable] = {}
    for name in names:
        module, _, attr = name.rpartition(".")
        try:
            real = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError):
            continue
        out[name] = watch(rec, name, real)
    return out
