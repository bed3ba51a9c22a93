# reason: structure
# hint: 'clipped' must have the structure of grads ({"dense": {"w", "b"}, "out": {"w", "b"}}); unravel the flat vector back into the pytree.
# misreads: where `clipped` has the same keys, shapes and dtype (`float32`) as `grads`
import jax.numpy as jnp
from jax.flatten_util import ravel_pytree


def clip_by_global_norm(grads, max_norm):
    flat, _unravel = ravel_pytree(grads)
    norm = jnp.linalg.norm(flat)
    return {"clipped": flat * (max_norm / jnp.maximum(norm, max_norm)), "global_norm": norm}
