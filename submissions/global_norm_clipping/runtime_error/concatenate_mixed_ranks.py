# reason: exception
# jnp.concatenate of the raw leaves fails: they have different ranks ((D, H), (H,), ()); ravel each leaf first.
import jax
import jax.numpy as jnp


def clip_by_global_norm(grads, max_norm):
    flat = jnp.concatenate(jax.tree_util.tree_leaves(grads))
    norm = jnp.linalg.norm(flat)
    scale = max_norm / jnp.maximum(norm, max_norm)
    return {"clipped": jax.tree_util.tree_map(lambda g: g * scale, grads), "global_norm": norm}
