# reason: value
# hint: the norm sums the squares; averaging them (a root mean square) shrinks it by sqrt(number of entries) and clips too little.
# misreads: The global norm, the L2 norm over all entries of all four leaves:
import jax.numpy as jnp
from jax.flatten_util import ravel_pytree


def clip_by_global_norm(grads, max_norm):
    flat, unravel = ravel_pytree(grads)
    norm = jnp.sqrt(jnp.mean(flat * flat))
    return {"clipped": unravel(flat * (max_norm / jnp.maximum(norm, max_norm))), "global_norm": norm}
