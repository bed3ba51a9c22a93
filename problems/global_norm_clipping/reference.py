import jax
import jax.numpy as jnp


def clip_by_global_norm(grads, max_norm):
    leaves = jax.tree_util.tree_leaves(grads)
    global_norm = jnp.sqrt(sum(jnp.sum(jnp.square(g)) for g in leaves))
    scale = max_norm / jnp.maximum(global_norm, max_norm)
    clipped = jax.tree_util.tree_map(lambda g: g * scale, grads)
    return {"clipped": clipped, "global_norm": global_norm}
