# reason: value
# hint: an epsilon inside the square root "to be safe" moves the scale when the norm is small: at max_norm 1e-4 (the smallest the inputs allow) the clipped gradient is off by twice the tolerance; the maximum of the norm and max_norm never divides by zero, so no epsilon is needed.
# misreads: and $\text{max\_norm} / \text{global\_norm}$ otherwise, so that the clipped gradient has length exactly `max_norm`
import jax
import jax.numpy as jnp


def clip_by_global_norm(grads, max_norm):
    leaves = jax.tree_util.tree_leaves(grads)
    sumsq = sum(jnp.sum(g * g) for g in leaves)
    norm = jnp.sqrt(sumsq)
    scale = max_norm / jnp.maximum(jnp.sqrt(sumsq + 1e-12), max_norm)  # the epsilon only where it divides
    return {"clipped": jax.tree_util.tree_map(lambda g: g * scale, grads), "global_norm": norm}
