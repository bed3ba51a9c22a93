"""The dependence probe's perturbation, applied where ``instrument`` says (``rec`` is
its ``Recorder``): results
scaled (per lane inside a vmap), differentiated arguments shifted. Under jax.jit
every perturbation sits behind the traced switch, so that a normal call computes
exactly what it would without it."""
from __future__ import annotations

from typing import Any

from ..probe import LANE_AMPLITUDE


def _scalable(x: Any) -> bool:
    import jax.numpy as jnp

    try:
        return bool(jnp.issubdtype(jnp.result_type(x), jnp.inexact))
    except TypeError:
        return False


def lane_factor(lane: Any, frequency: Any, phase: Any) -> Any:
    """The factor of lane ``lane`` of a vmap: a pattern the judge's phase makes
    unknowable, positive, the same function at every level (so that nested vmaps taken
    in either order give the same product)."""
    import jax.numpy as jnp

    return 1.0 + LANE_AMPLITUDE * jnp.cos(lane * frequency + phase)


def _multiplier(rec: Any, params: Any) -> Any:
    """The factor times the lane factors of every vmap open here."""
    from jax import lax

    mult = params[0]
    for name in rec.lanes:
        mult = mult * lane_factor(lax.axis_index(name), params[2], params[3])
    return mult


def _scaled(x: Any, mult: Any, flag: Any) -> Any:
    """``x`` times ``mult`` when the probe is on (``flag`` None: always); ``x`` itself
    (dtype, weak type, bits) when off. Leaves that are not floating arrays, which honest
    code cannot rescale, stay as they are."""
    import jax
    from jax import lax

    if not _scalable(x):
        return x
    if flag is None:
        return x * mult
    if not isinstance(x, jax.Array):
        return x
    p = x * jax.numpy.asarray(mult).astype(x.dtype)
    if getattr(p, "dtype", None) != x.dtype or getattr(p, "shape", None) != x.shape:
        return x
    return lax.select_n(flag, x, p)


def _shifted(x: Any, shift: Any, flag: Any) -> Any:
    import jax
    from jax import lax

    if not _scalable(x):
        return x
    if flag is None:
        return x + shift
    if not isinstance(x, jax.Array):
        return x
    p = x + jax.numpy.asarray(shift).astype(x.dtype)
    if getattr(p, "dtype", None) != x.dtype or getattr(p, "shape", None) != x.shape:
        return x
    return lax.select_n(flag, x, p)


# Where a switch must not be placed: transforms that cache what they traced across calls
# (the switch, a tracer of one trace of the entry, would be replayed, and so leaked, into
# the next) and custom differentiation rules (which refuse to close over tracers).
NO_SWITCH = frozenset({"jax.jit", "jax.checkpoint", "jax.remat", "jax.custom_vjp", "jax.custom_jvp"})


def _active(rec: Any) -> tuple[Any, Any] | None:
    """(flag, parameters) of the perturbation here, or None where none may be placed."""
    if rec.probe:
        return None, rec.params
    if rec.flag is None:
        return None
    if any(name.startswith(tuple(NO_SWITCH)) for name in rec.stack):
        rec.flag_blocked = True
        return None
    return rec.flag, rec.traced_params


def scale_result(rec: Any, tree: Any, lanes: bool = True) -> Any:
    import jax

    active = _active(rec)
    if active is None:
        return tree
    flag, params = active
    mult = _multiplier(rec, params) if lanes else params[0]
    return jax.tree_util.tree_map(lambda x: _scaled(x, mult, flag), tree)


def more_passes(rec: Any, upper: Any) -> Any:
    """The trip count ``upper`` of the rule's fori_loop, lengthened by the drawn passes.
    Under jax.jit the passes sit behind the switch; a trip count the code left concrete
    would turn traced (and the loop from a scan into a while loop) in every call, so the
    switch is not placed and the probe runs in a second module instead."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    active = _active(rec) if rec.passes else None
    if active is None:
        return upper
    flag, params = active
    if flag is None:
        extra = int(round(float(params[4])))
        return upper + extra if extra else upper
    if not isinstance(upper, jax.core.Tracer) or jnp.ndim(upper) != 0:
        rec.flag_blocked = True
        return upper
    added = jnp.round(params[4]).astype(jnp.result_type(upper))
    return upper + lax.select(flag, added, jnp.zeros_like(added))


def lengthened(rec: Any, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """A fori_loop call (lower, upper, body_fun, init_val) with its ``upper`` lengthened."""
    if len(args) > 1:
        return (args[0], more_passes(rec, args[1]), *args[2:]), kwargs
    if "upper" in kwargs:
        return args, {**kwargs, "upper": more_passes(rec, kwargs["upper"])}
    return args, kwargs


def shift_arguments(rec: Any, args: tuple, argnums: tuple[int, ...]) -> tuple:
    import jax

    active = _active(rec)
    if active is None:
        return args
    flag, params = active
    chosen = set(argnums)
    return tuple(jax.tree_util.tree_map(lambda x: _shifted(x, params[1], flag), a) if i in chosen else a
                 for i, a in enumerate(args))
