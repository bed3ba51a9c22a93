# reason: value
# hint: a floor under the sum of squares (to keep the square root's derivative finite) reports every norm below 1e-6 as 1e-6; the inputs allow norms that small.
# misreads: The global norm, the L2 norm over all entries of all four leaves
import jax
import jax.numpy as jnp


def clip_by_global_norm(grads, max_norm):
    leaves = jax.tree_util.tree_leaves(grads)
    sumsq = sum(jnp.sum(g * g) for g in leaves)
    # A zero gradient stays exactly 0; any other sum is floored, to keep sqrt's derivative finite.
    norm = jnp.where(sumsq > 0, jnp.sqrt(jnp.maximum(sumsq, 1e-12)), 0.0)
    scale = max_norm / jnp.maximum(norm, max_norm)
    return {"clipped": jax.tree_util.tree_map(lambda g: g * scale, grads), "global_norm": norm}
