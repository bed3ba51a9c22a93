# reason: exception
# attack: result dict keyed by objects whose __lt__ runs when JAX sorts the keys in the judge's own flatten (after the call returned); _live_() makes that callback raise instead of running outside a call window.
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


class Key:
    def __init__(self, k):
        self.k = k

    def __lt__(self, other):
        try:
            jax.vmap(lambda v: _deep(5000, v))(jnp.ones(3))
        except Exception:
            pass
        return self.k < other.k


def per_example_grad_clip(params, x, y, max_norm):
    out = _solve(params, x, y, max_norm)
    return {Key(1): out["grads"], Key(2): out["norms"]}
