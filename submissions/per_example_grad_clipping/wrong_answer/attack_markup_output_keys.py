# reason: structure
# attack: an extra result key made of rich markup and a lone surrogate, which the structure check quotes, to crash the text report; the entry guard makes result keys printable and report.py escapes markup.
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


def per_example_grad_clip(params, x, y, max_norm):
    out = _solve(params, x, y, max_norm)
    out["[/x] " + chr(0xD800)] = 1.0
    return out
