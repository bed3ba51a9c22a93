# reason: nan
# hint: g / global_norm * min(global_norm, max_norm) divides zero by zero when every gradient is zero; an all-zero pytree must stay zero.
# misreads: An all-zero `grads` has global norm `0`; it must come back as zeros, with no NaN anywhere.
import jax
import jax.numpy as jnp


def clip_by_global_norm(grads, max_norm):
    norm = jnp.sqrt(sum(jnp.sum(g ** 2) for g in jax.tree_util.tree_leaves(grads)))
    clipped = jax.tree_util.tree_map(lambda g: g / norm * jnp.minimum(norm, max_norm), grads)
    return {"clipped": clipped, "global_norm": norm}
