# reason: compile
# The function is named after optax's global_norm helper, so the entry point clip_by_global_norm is missing.
import jax
import jax.numpy as jnp


def clip_grads(grads, max_norm):
    norm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree_util.tree_leaves(grads)))
    scale = max_norm / jnp.maximum(norm, max_norm)
    return {"clipped": jax.tree_util.tree_map(lambda g: g * scale, grads), "global_norm": norm}
