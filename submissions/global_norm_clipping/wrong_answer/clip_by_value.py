# reason: value
# hint: clipping by norm rescales the whole pytree by one factor; clamping every entry to [-max_norm, max_norm] (clipping by value) changes the direction.
# misreads: If that length is above a limit, the whole gradient is shrunk by one common factor.
import jax
import jax.numpy as jnp


def clip_by_global_norm(grads, max_norm):
    norm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree_util.tree_leaves(grads)))
    clipped = jax.tree_util.tree_map(lambda g: jnp.clip(g, -max_norm, max_norm), grads)
    return {"clipped": clipped, "global_norm": norm}
