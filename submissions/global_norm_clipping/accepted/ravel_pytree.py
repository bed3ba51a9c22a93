# Flatten the whole pytree into one vector with ravel_pytree, clip it, and unravel it back.
import jax.numpy as jnp
from jax.flatten_util import ravel_pytree


def clip_by_global_norm(grads, max_norm):
    flat, unravel = ravel_pytree(grads)
    norm = jnp.sqrt(jnp.vdot(flat, flat))
    factor = jnp.minimum(1.0, max_norm / jnp.maximum(norm, max_norm))
    return {"clipped": unravel(flat * factor), "global_norm": norm}
