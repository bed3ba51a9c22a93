# reason: requirement
"""Mentions jax.vmap(jax.grad(loss)) only in this docstring and comments; no jax.grad in code."""
import jax
import jax.numpy as jnp

# jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))
NOTE = "jax.grad"


def per_example_grad_clip(params, x, y, max_norm):
    err = x @ params["w"] + params["b"] - y
    gw = jax.vmap(lambda e, xi: e * xi)(err, x)
    gb = err
    norms = jnp.sqrt(jnp.sum(gw ** 2, axis=1) + gb ** 2)
    f = jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.mean(gw / f[:, None], axis=0), "b": jnp.mean(gb / f)}, "norms": norms}
