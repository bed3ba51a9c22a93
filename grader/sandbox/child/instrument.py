"""Runtime evidence of the transforms a submission really uses (child side).

Each watched callable is replaced, in the modules the submission sees, by a
wrapper that records the call and its line. For function transforms the
function handed in is wrapped too, so that while JAX traces it the recorder
knows which transforms are "open": a ``jax.grad`` function entered while a
``jax.vmap`` function runs yields the nesting ``("jax.vmap", "jax.grad")``.

The same wrappers implement the dependence probe: what the innermost transform
of the rule hands back (the gradient that a ``grad`` function returns, the
values ``scan`` returns) is multiplied by a positive factor the judge draws for
each grade, whenever it is produced inside the rule's outer transforms. The judge
runs the reference under the same factor and requires the submission's outputs
to follow it: outputs computed some other way (a decoy call, an ignored result,
or code that only reacts to the change) do not. A single positive factor commutes
with every linear rearrangement honest code applies (ravelling, argnums, a loss
scaled and the gradient unscaled). Under ``jax.jit`` the factor is switched on by
a traced flag, so the compiled program of a case serves both the run and the
probe; a run without jit poisons unconditionally in a second module (``probe=True``).

The record is bounded: a submission can make the wrappers run as often as it
likes, but only so many nestings, and so deep, are kept (``overflow`` says so).
"""
from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

from ..language import SUBMISSION_FILE

# Callables whose function arguments are traced: name -> positions of those arguments.
FUNCTION_ARGS: dict[str, tuple[int, ...]] = {
    "jax.grad": (0,), "jax.value_and_grad": (0,), "jax.vmap": (0,), "jax.jit": (0,),
    "jax.jacfwd": (0,), "jax.jacrev": (0,), "jax.jacobian": (0,), "jax.hessian": (0,), "jax.jvp": (0,),
    "jax.vjp": (0,), "jax.linearize": (0,), "jax.checkpoint": (0,), "jax.remat": (0,),
    "jax.custom_vjp": (0,), "jax.custom_jvp": (0,),
    "jax.lax.scan": (0,), "jax.lax.map": (0,), "jax.lax.fori_loop": (2,), "jax.lax.while_loop": (0, 1),
    "jax.lax.cond": (1, 2), "jax.lax.associative_scan": (0,),
}
WATCHED_BY_DEFAULT = tuple(FUNCTION_ARGS)


MAX_NESTS = 256  # distinct nestings kept
MAX_DEPTH = 16  # transforms kept per nesting


@dataclass
class Recorder:
    poison_rule: tuple[str, ...] = ()  # (T,) poisons T's results; (outer, ..., inner) when inner ran inside
    probe: bool = False  # poison unconditionally, by ``factor``
    factor: float = 1.0
    # While the jitted entry is traced: the traced bool that switches the poison on
    # (a probe call) or off (a normal call), and the traced factor, so that both calls
    # share one compiled program whatever factor the judge drew.
    flag: Any = None
    scale: Any = None
    # Set when the switch could not be placed (see _poison): the probe then takes the slow path.
    flag_blocked: bool = False
    # Off while hidden cases run: the lines a call comes from could encode hidden inputs.
    lines: bool = True
    calls: dict[str, list[int]] = field(default_factory=dict)
    nests: set[tuple[str, ...]] = field(default_factory=set)
    stack: list[str] = field(default_factory=list)
    overflow: bool = False  # more nestings than the record keeps
    scaling: int = 0  # calls of the rule's innermost transform whose result will be scaled, open now

    def note_nest(self) -> None:
        nest = tuple(self.stack[:MAX_DEPTH])
        if nest in self.nests:
            return
        if len(self.nests) >= MAX_NESTS or len(self.stack) > MAX_DEPTH:
            self.overflow = True
            if len(self.nests) >= MAX_NESTS:
                return
        self.nests.add(nest)

    def note_call(self, name: str) -> None:
        lines = self.calls.setdefault(name, [])
        line = _submission_line() if self.lines else None
        if line is not None and line not in lines and len(lines) < 20:
            lines.append(line)

    def report(self) -> dict:
        return {"calls": self.calls, "nests": sorted(list(n) for n in self.nests), "overflow": self.overflow}


def _submission_line() -> int | None:
    frame = sys._getframe(2)
    for _ in range(30):
        if frame is None:
            return None
        if frame.f_code.co_filename == SUBMISSION_FILE:
            return frame.f_lineno
        frame = frame.f_back
    return None


def _scalable(x: Any) -> bool:
    import jax.numpy as jnp

    try:
        return bool(jnp.issubdtype(jnp.result_type(x), jnp.inexact))
    except TypeError:
        return False


def _poison_leaf(x: Any, factor: float) -> Any:
    """Floating values scaled by the factor; integers and booleans, which honest code
    cannot rescale, stay as they are."""
    return x * factor if _scalable(x) else x


def _switched(x: Any, flag: Any, scale: Any) -> Any:
    """``x`` when the flag is off, scaled when on; exactly ``x`` (dtype, weak type,
    bits) on a normal call. Leaves that are not floating arrays stay as they are."""
    import jax
    from jax import lax

    if not isinstance(x, jax.Array) or not _scalable(x):
        return x
    p = x * scale.astype(x.dtype)
    if getattr(p, "dtype", None) != x.dtype or getattr(p, "shape", None) != x.shape:
        return x
    return lax.select_n(flag, x, p)


# Where a switch must not be placed: transforms that cache what they traced across calls
# (the switch, a tracer of one trace of the entry, would be replayed, and so leaked, into
# the next) and custom differentiation rules (which refuse to close over tracers).
NO_SWITCH = frozenset({"jax.jit", "jax.checkpoint", "jax.remat", "jax.custom_vjp", "jax.custom_jvp"})


def _poison(rec: Recorder, tree: Any) -> Any:
    import jax

    if rec.probe:
        return jax.tree_util.tree_map(lambda x: _poison_leaf(x, rec.factor), tree)
    flag, scale = rec.flag, rec.scale
    if flag is None:
        return tree
    if any(name.startswith(tuple(NO_SWITCH)) for name in rec.stack):
        rec.flag_blocked = True
        return tree
    return jax.tree_util.tree_map(lambda x: _switched(x, flag, scale), tree)


# Transforms that return a function; the others (scan, jvp, ...) return values.
PRODUCES_FUNCTION = frozenset({"jax.grad", "jax.value_and_grad", "jax.vmap", "jax.jit", "jax.jacfwd", "jax.jacrev",
                               "jax.jacobian", "jax.hessian", "jax.checkpoint", "jax.remat"})


def _in_context(rec: Recorder, context: tuple[str, ...]) -> bool:
    it = iter(rec.stack)
    return all(any(name == open_ for open_ in it) for name in context)


def _traced(rec: Recorder, name: str, fun: Callable) -> Callable:
    @functools.wraps(fun)
    def traced(*args: Any, **kwargs: Any) -> Any:
        rec.stack.append(name)
        rec.note_nest()
        try:
            return fun(*args, **kwargs)
        finally:
            rec.stack.pop()

    return traced


def _scaling(rec: Recorder, context: tuple[str, ...], run: Callable[[], Any]) -> Any:
    """Run a call of the rule's innermost transform and scale its result, unless an
    enclosing call of the same transform already scales: the factor is applied once per
    chain, so three nested vmaps follow the probe as two do."""
    if rec.scaling or not _in_context(rec, context):
        return run()
    rec.scaling += 1
    try:
        out = run()
    finally:
        rec.scaling -= 1
    return _poison(rec, out)


def _poisoning(rec: Recorder, context: tuple[str, ...], produced: Callable) -> Callable:
    @functools.wraps(produced)
    def call(*args: Any, **kwargs: Any) -> Any:
        return _scaling(rec, context, lambda: produced(*args, **kwargs))

    return call


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
    rule = rec.poison_rule
    target = bool(rule) and rule[-1] == name

    @functools.wraps(real)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        rec.note_call(name)
        if positions:
            args = tuple(_traced(rec, name, a) if i in positions and callable(a) else a
                         for i, a in enumerate(args))
            for key in ("fun", "f", "body_fun", "cond_fun"):
                if key in kwargs and callable(kwargs[key]):
                    kwargs[key] = _traced(rec, name, kwargs[key])
        # Scale what the innermost transform of the rule hands back, when it runs inside
        # the outer ones: outputs computed from it follow the factor, others do not.
        if target and name not in PRODUCES_FUNCTION:
            result = _scaling(rec, rule[:-1], lambda: real(*args, **kwargs))
        else:
            result = real(*args, **kwargs)
        if name in ("jax.custom_vjp", "jax.custom_jvp"):
            result = _watch_custom_rule(rec, name, result)
        if target and name in PRODUCES_FUNCTION and callable(result):
            result = _poisoning(rec, rule[:-1], result)
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
