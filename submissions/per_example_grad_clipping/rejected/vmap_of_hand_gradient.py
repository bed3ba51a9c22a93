# reason: requirement
# vmap is applied to a hand-written gradient; grad is only used on something else.
import jax
import jax.numpy as jnp


def hand_grad(params, xi, yi):
    e = xi @ params["w"] + params["b"] - yi
    return {"w": e * xi, "b": e}


def per_example_grad_clip(params, x, y, max_norm):
    g = jax.vmap(hand_grad, in_axes=(None, 0, 0))(params, x, y)
    _ = jax.grad(lambda t: t * t)(1.0)
    norms = jnp.sqrt(jnp.sum(g["w"] ** 2, axis=1) + g["b"] ** 2)
    f = jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.mean(g["w"] / f[:, None], axis=0), "b": jnp.mean(g["b"] / f)}, "norms": norms}
