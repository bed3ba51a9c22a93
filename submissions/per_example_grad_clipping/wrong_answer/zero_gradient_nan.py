# reason: nan
# hint: g / ||g|| * min(||g||, C) divides by zero when an example's gradient is exactly zero.
# misreads: An example whose gradient is exactly zero contributes zero, and never NaN.
import jax
import jax.numpy as jnp


def loss(params, x, y):
    return 0.5 * (x @ params["w"] + params["b"] - y) ** 2


def per_example_grad_clip(params, x, y, max_norm):
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    norms = jnp.sqrt(jnp.sum(g["w"] ** 2, axis=1) + g["b"] ** 2)
    s = jnp.minimum(norms, max_norm) / norms
    return {"grads": {"w": jnp.mean(g["w"] * s[:, None], axis=0), "b": jnp.mean(g["b"] * s)}, "norms": norms}
