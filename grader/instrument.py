"""Runtime evidence of the transforms a submission really uses (child side).

Each watched callable is replaced, in the modules the submission sees, by a
wrapper that records the call and its line. For function transforms the
function handed in is wrapped too, so that while JAX traces it the recorder
knows which transforms are "open": a ``jax.grad`` function entered while a
``jax.vmap`` function runs yields the nesting ``("jax.vmap", "jax.grad")``.

The same wrappers implement the dependence probe: in probe mode the traced
function of the poisoned transform returns NaN (for a nesting, only when the
inner transform ran inside it). Outputs that stay the same under poisoning were
not computed from that transform (a decoy call).
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
    poison_rule: tuple[str, ...] = ()  # (T,) poisons T's results; (outer, ..., inner) when inner ran inside
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
    rule = rec.poison_rule
    poisons = rec.probe and bool(rule) and rule[0] == name
    inner = rule[-1] if len(rule) > 1 else None

    @functools.wraps(fun)
    def traced(*args: Any, **kwargs: Any) -> Any:
        rec.stack.append(name)
        rec.nests.add(tuple(rec.stack))
        rec.entered[name] = rec.entered.get(name, 0) + 1
        before = rec.entered.get(inner, 0) if inner else 0
        try:
            out = fun(*args, **kwargs)
        finally:
            rec.stack.pop()
        if poisons and (inner is None or rec.entered.get(inner, 0) > before):
            out = _poison(out)
        return out

    return traced


def _watch_custom_rule(rec: Recorder, name: str, obj: Any) -> Any:
    """custom_vjp/custom_jvp objects: record ``defvjp``/``defjvp`` and trace the rules,
    so a problem can require that its backward rule really ran under ``jax.grad``."""
    for method, parts in (("defvjp", ("fwd", "bwd")), ("defjvp", ("jvp",))):
        real = getattr(obj, method, None)
        if real is None:
            continue

        def define(*fns: Any, _real: Callable = real, _method: str = method, _parts: tuple = parts, **kw: Any):
            rec.note_call(f"{name}.{_method}")
            fns = tuple(_traced(rec, f"{name}.{part}", f) if callable(f) else f for part, f in zip(_parts, fns)) \
                + fns[len(_parts):]
            return _real(*fns, **kw)

        try:
            object.__setattr__(obj, method, define)
        except (AttributeError, TypeError):
            pass
    return obj


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
        result = real(*args, **kwargs)
        if name in ("jax.custom_vjp", "jax.custom_jvp"):
            result = _watch_custom_rule(rec, name, result)
        return result

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
