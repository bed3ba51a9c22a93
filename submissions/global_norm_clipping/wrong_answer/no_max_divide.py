# reason: value
# hint: the scale is max_norm / max(global_norm, max_norm); max_norm / global_norm alone also stretches gradients that are already short enough (and gives NaN on an all-zero pytree).
# misreads: It is $1$ when $\text{global\_norm} \le \text{max\_norm}$ (nothing changes)
import jax
import jax.numpy as jnp


def clip_by_global_norm(grads, max_norm):
    norm = jnp.sqrt(sum(jnp.sum(g ** 2) for g in jax.tree_util.tree_leaves(grads)))
    scale = max_norm / norm
    return {"clipped": jax.tree_util.tree_map(lambda g: g * scale, grads), "global_norm": norm}
