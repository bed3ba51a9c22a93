# Plain Python control flow on the norm: under jit the `if` fails on a tracer, so the judge
# reruns it eagerly, where the norm is a concrete number and the branch is ordinary Python.
import jax
import jax.numpy as jnp


def clip_by_global_norm(grads, max_norm):
    leaves = jax.tree_util.tree_leaves(grads)
    norm = jnp.sqrt(sum(jnp.vdot(g, g) for g in leaves))
    if norm > max_norm:
        clipped = jax.tree_util.tree_map(lambda g: g * (max_norm / norm), grads)
    else:
        clipped = jax.tree_util.tree_map(lambda g: g, grads)
    return {"clipped": clipped, "global_norm": norm}
