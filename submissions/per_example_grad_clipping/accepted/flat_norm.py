# Concatenate each example's gradient into one vector and take its norm.
import jax
import jax.numpy as jnp


def loss(params, x, y):
    pred = x @ params["w"] + params["b"]
    return 0.5 * (pred - y) ** 2


def per_example_grad_clip(params, x, y, max_norm):
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    flat = jnp.concatenate([g["w"], g["b"][:, None]], axis=1)
    norms = jnp.linalg.norm(flat, axis=-1)
    factor = jnp.maximum(1.0, norms / max_norm)
    clipped = flat / factor[:, None]
    mean = clipped.mean(axis=0)
    return {"grads": {"w": mean[:-1], "b": mean[-1]}, "norms": norms}
