# reason: value
# hint: the global norm is the square root of the sum of squares; without the sqrt both global_norm and the clipping threshold are wrong.
# misreads: The global norm, the L2 norm over all entries of all four leaves:
import jax
import jax.numpy as jnp


def clip_by_global_norm(grads, max_norm):
    sq = sum(jnp.sum(jnp.square(g)) for g in jax.tree_util.tree_leaves(grads))
    scale = max_norm / jnp.maximum(sq, max_norm)
    return {"clipped": jax.tree_util.tree_map(lambda g: g * scale, grads), "global_norm": sq}
