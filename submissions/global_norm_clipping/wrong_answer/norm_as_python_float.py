# reason: type
# hint: global_norm must be a JAX array of shape (); float(...) or .item() turns it into a Python number.
# misreads: Every value is a JAX array of dtype `float32`.
import jax
import jax.numpy as jnp


def clip_by_global_norm(grads, max_norm):
    norm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree_util.tree_leaves(grads)))
    scale = max_norm / jnp.maximum(norm, max_norm)
    return {"clipped": jax.tree_util.tree_map(lambda g: g * scale, grads), "global_norm": float(norm)}
