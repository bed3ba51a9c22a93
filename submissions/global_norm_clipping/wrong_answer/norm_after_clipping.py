# reason: value
# hint: global_norm is the norm of the gradients before clipping; the norm of the clipped pytree is min(global_norm, max_norm).
# misreads: `global_norm` is the norm *before* clipping
import jax
import jax.numpy as jnp


def _norm(tree):
    return jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree_util.tree_leaves(tree)))


def clip_by_global_norm(grads, max_norm):
    scale = max_norm / jnp.maximum(_norm(grads), max_norm)
    clipped = jax.tree_util.tree_map(lambda g: g * scale, grads)
    return {"clipped": clipped, "global_norm": _norm(clipped)}
