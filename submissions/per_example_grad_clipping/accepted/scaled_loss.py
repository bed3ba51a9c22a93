# The gradient of a scaled loss, unscaled afterwards (as loss scaling does): a linear
# rearrangement that the dependence probe's factor commutes with.
import jax
import jax.numpy as jnp

SCALE = 1024.0


def scaled_loss(params, x, y):
    err = x @ params["w"] + params["b"] - y
    return SCALE * 0.5 * err * err


def per_example_grad_clip(params, x, y, max_norm):
    scaled = jax.vmap(jax.grad(scaled_loss), in_axes=(None, 0, 0))(params, x, y)
    g = jax.tree_util.tree_map(lambda t: t / SCALE, scaled)
    norms = jnp.sqrt(jnp.sum(g["w"] ** 2, axis=1) + g["b"] ** 2)
    f = jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.mean(g["w"] / f[:, None], axis=0), "b": jnp.mean(g["b"] / f)}, "norms": norms}
