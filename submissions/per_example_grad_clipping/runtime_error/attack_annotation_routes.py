# reason: exception
# attack: annotations as a way around the policy (a refused callback or jax.live_arrays in a field's annotation, reading annotations back, annotated writes to modules); the policy checks each annotation and keeps it as text that never runs, reading it back needs a dunder the guarded getattr refuses, and annotated targets and values are guarded like any assignment, so every route fails and the file ends in RE.
from typing import NamedTuple

import jax
import jax.numpy as jnp


def _loss(params, x, y):
    err = jnp.dot(x, params["w"]) + params["b"] - y
    return 0.5 * err * err


def _solve(params, x, y, max_norm):
    grads = jax.vmap(jax.grad(_loss), in_axes=(None, 0, 0))(params, x, y)
    norms = jnp.sqrt(jnp.sum(grads["w"] ** 2, axis=1) + grads["b"] ** 2)
    scale = 1.0 / jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.mean(grads["w"] * scale[:, None], axis=0), "b": jnp.mean(grads["b"] * scale)},
            "norms": norms}


def _try_routes(routes):
    """Every route must fail; a route that works is an escape and yields a WA, not the expected RE."""
    errors = []
    for route in routes:
        try:
            got = route()
        except Exception as exc:
            errors.append(str(exc))
            continue
        return {"escaped": jnp.float32(routes.index(route))}
    raise RuntimeError("all routes blocked: " + " | ".join(errors)[:1500])


def _callback_in_a_field_read_back():
    class State(NamedTuple):
        leak: jax.pure_callback(print, jax.ShapeDtypeStruct((), jnp.float32))
        arrays: jax.live_arrays()

    # The annotations above never ran; they are text, and reading them needs a dunder.
    dunder = "_" + "_"
    return getattr(State, dunder + "annotations" + dunder)["arrays"]


def _field_names_back_to_code():
    class State(NamedTuple):
        leak: jax.live_arrays()

    return getattr(State, "_" + "field_defaults")


def _callback_in_a_field_value():
    class State:
        leak: float = jax.debug.callback(print, 1.0)

    return State


def _annotated_write_to_a_module():
    class State:
        jnp.dot: int = print

    return jnp.dot


def _refused_type_in_a_functional_namedtuple():
    return NamedTuple("State", [("leak", getattr(jax, "live_arrays")())])


def per_example_grad_clip(params, x, y, max_norm):
    return _try_routes([_callback_in_a_field_read_back, _field_names_back_to_code, _callback_in_a_field_value,
                        _annotated_write_to_a_module, _refused_type_in_a_functional_namedtuple])
