# reason: value
# hint: max(norm, max_norm + 1e-8) shrinks a gradient that needs no clipping by max_norm / (max_norm + 1e-8), which is 1e-4 off when max_norm is 1e-4 (the smallest the inputs allow); max(norm, max_norm) needs no epsilon.
# misreads: If that length is above a limit, the whole gradient is shrunk by one common factor.
import jax
import jax.numpy as jnp


def clip_by_global_norm(grads, max_norm):
    leaves = jax.tree_util.tree_leaves(grads)
    norm = jnp.sqrt(sum(jnp.sum(g * g) for g in leaves))
    scale = max_norm / jnp.maximum(norm, max_norm + 1e-8)
    return {"clipped": jax.tree_util.tree_map(lambda g: g * scale, grads), "global_norm": norm}
