# reason: exception
import jax
import jax.numpy as jnp

SCALE = 1 / 0


def per_example_grad_clip(params, x, y, max_norm):
    return jax.vmap(jax.grad(lambda p, a, b: jnp.sum(a)))(params, x, y)
