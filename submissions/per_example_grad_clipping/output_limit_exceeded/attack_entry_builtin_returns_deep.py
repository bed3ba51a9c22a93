# reason: output_size
# attack: the entry is functools.partial(max, DEEP, key=callable): a builtin returns a prebuilt 10000-deep dict without any submission frame on the stack; the guard wraps any callable entry.
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

import functools

DEEP = {"grads": None}
for _i in range(10000):
    DEEP = {"grads": DEEP}

per_example_grad_clip = functools.partial(max, DEEP, key=callable)
