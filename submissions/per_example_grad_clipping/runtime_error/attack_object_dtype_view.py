# reason: exception
# attack: reinterpreting integer memory as PyObject pointers (view/astype/getfield with dtype object) to forge objects; numpy refuses object views.
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
        return {"escaped": repr(got)[:200]}
    raise RuntimeError("all routes blocked: " + " | ".join(errors)[:1500])

import numpy as np


def per_example_grad_clip(params, x, y, max_norm):
    a = np.zeros(4, dtype=np.int64)
    return _try_routes([
        lambda: a.view("O")[0],
        lambda: a.getfield(jnp.dtype("O"), 0),
        lambda: np.array([1, 2], dtype=jnp.dtype([("p", "i8")])).view(jnp.dtype([("p", "O")])),
        lambda: np.frombuffer(b"12345678", dtype="O"),
    ])
