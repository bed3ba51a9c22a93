# reason: value
# hint: the norm is global, over every entry of every leaf together; clipping each leaf by its own norm changes the direction of the update.
# misreads: The length is measured over the *whole* gradient: every entry of every parameter together, as if all leaves were laid end to end in one long vector.
import jax
import jax.numpy as jnp


def clip_by_global_norm(grads, max_norm):
    def clip_leaf(g):
        n = jnp.sqrt(jnp.sum(g * g))
        return g * (max_norm / jnp.maximum(n, max_norm))

    global_norm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree_util.tree_leaves(grads)))
    return {"clipped": jax.tree_util.tree_map(clip_leaf, grads), "global_norm": global_norm}
