# reason: exception
# attack: setattr()/del on modules and on module-level functions (jax.grad.__wrapped__, np.linalg.norm.x); guarded setattr allows only dicts, lists and the submission's own objects.
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


def _set1():
    setattr(jax, "grad", None)


def _set2():
    setattr(np.linalg, "norm", None)


def _set3():
    jax.grad.marker = 1


def _set4():
    del jnp.mean


def per_example_grad_clip(params, x, y, max_norm):
    return _try_routes([_set1, _set2, _set3, _set4])
