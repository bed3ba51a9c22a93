# reason: value
# hint: per-leaf norms combine as sqrt(sum of their squares), not by adding them; their plain sum overstates the global norm.
# misreads: The length is measured over the *whole* gradient: every entry of every parameter together, as if all leaves were laid end to end in one long vector.
import jax
import jax.numpy as jnp


def clip_by_global_norm(grads, max_norm):
    norm = sum(jnp.linalg.norm(g) for g in jax.tree_util.tree_leaves(grads))
    scale = max_norm / jnp.maximum(norm, max_norm)
    return {"clipped": jax.tree_util.tree_map(lambda g: g * scale, grads), "global_norm": norm}
