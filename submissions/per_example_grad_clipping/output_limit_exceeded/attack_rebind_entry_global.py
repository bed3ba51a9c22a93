# reason: output_size
# attack: the entry rebinds its own global name (global statement) to a function returning a 10000-deep dict, to dodge the guard on later cases; the namespace re-guards any rebound entry.
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


def _deep_entry(params, x, y, max_norm):
    d = _solve(params, x, y, max_norm)
    for i in range(10000):
        d = {"grads": d}
    return d


def per_example_grad_clip(params, x, y, max_norm):
    global per_example_grad_clip
    per_example_grad_clip = _deep_entry
    return _deep_entry(params, x, y, max_norm)
