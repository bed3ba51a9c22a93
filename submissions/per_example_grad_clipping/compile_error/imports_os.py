# reason: compile
import os

import jax
import jax.numpy as jnp


def per_example_grad_clip(params, x, y, max_norm):
    os.system("echo hi")
    return jax.vmap(jax.grad(lambda p, a, b: jnp.sum(a)))(params, x, y)
