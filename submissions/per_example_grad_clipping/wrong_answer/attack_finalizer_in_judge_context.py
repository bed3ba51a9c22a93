# reason: structure
# attack: a generator suspended inside try/finally rides out in the result; when the judge drops the result the garbage collector runs the finally block, which used to feed a 5000-deep tree to vmap in the judge's context (recursion leak -> IE); _live_() now refuses submission code outside a call window.
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


def _deep(n, leaf):
    d = {"leaf": leaf}
    for i in range(n):
        d = {"next": d}
    return d


def _sleeper():
    try:
        yield 1
    finally:
        try:
            jax.vmap(lambda v: _deep(5000, v))(jnp.ones(3))
        except Exception:
            pass


def per_example_grad_clip(params, x, y, max_norm):
    out = _solve(params, x, y, max_norm)
    g = _sleeper()
    next(g)
    out["sleeper"] = g
    return out
