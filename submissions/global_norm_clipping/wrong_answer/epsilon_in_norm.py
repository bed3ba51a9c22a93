# reason: value
# hint: an epsilon added to the norm "to be safe" changes the scale when the norm itself is small (max_norm can be 1e-4); the maximum of the norm and max_norm never divides by zero, so no epsilon is needed.
# misreads: and $\text{max\_norm} / \text{global\_norm}$ otherwise, so that the clipped gradient has length exactly `max_norm`
import jax
import jax.numpy as jnp


def clip_by_global_norm(grads, max_norm):
    leaves = jax.tree_util.tree_leaves(grads)
    norm = jnp.sqrt(sum(jnp.sum(g * g) for g in leaves))
    scale = jnp.minimum(1.0, max_norm / (norm + 1e-6))
    return {"clipped": jax.tree_util.tree_map(lambda g: g * scale, grads), "global_norm": norm}
