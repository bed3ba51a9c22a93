# reason: value
# hint: the global norm is the L2 norm, sqrt of the sum of squares; the sum of absolute values (L1) is larger and clips too much.
# misreads: The global norm, the L2 norm over all entries of all four leaves:
import jax
import jax.numpy as jnp


def clip_by_global_norm(grads, max_norm):
    norm = sum(jnp.sum(jnp.abs(g)) for g in jax.tree_util.tree_leaves(grads))
    scale = max_norm / jnp.maximum(norm, max_norm)
    return {"clipped": jax.tree_util.tree_map(lambda g: g * scale, grads), "global_norm": norm}
