# Flatten each per-example gradient pytree with ravel_pytree inside a second vmap.
import jax
import jax.numpy as jnp
from jax.flatten_util import ravel_pytree


def example_loss(params, x, y):
    r = jnp.vdot(x, params["w"]) + params["b"] - y
    return 0.5 * r * r


def per_example_grad_clip(params, x, y, max_norm):
    grads = jax.vmap(jax.grad(example_loss), in_axes=(None, 0, 0))(params, x, y)
    _, unravel = ravel_pytree(params)
    flat = jax.vmap(lambda g: ravel_pytree(g)[0])(grads)
    norms = jnp.sqrt(jnp.sum(flat * flat, axis=1))
    clipped = flat * (1.0 / jnp.maximum(1.0, norms / max_norm))[:, None]
    mean = unravel(jnp.mean(clipped, axis=0))
    return {"grads": {"w": mean["w"], "b": mean["b"]}, "norms": norms}
