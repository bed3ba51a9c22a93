# One jnp.linalg.norm per leaf with tree_map; the global norm is the norm of those norms.
import jax
import jax.numpy as jnp


def clip_by_global_norm(grads, max_norm):
    leaf_norms = jax.tree_util.tree_map(jnp.linalg.norm, grads)
    global_norm = jnp.linalg.norm(jnp.stack(jax.tree_util.tree_leaves(leaf_norms)))
    scale = max_norm / jnp.maximum(global_norm, max_norm)
    return {"clipped": jax.tree_util.tree_map(lambda g: scale * g, grads), "global_norm": global_norm}
