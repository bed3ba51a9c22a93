# reason: requirement
# A Python loop over the rows of a, each through the nested vmap on a one-row slice:
# the nesting runs and the result depends on it, but the traced program grows with N.
import jax
import jax.numpy as jnp


def dist(u, v):
    return jnp.sqrt(jnp.sum((u - v) ** 2))


def pairwise_distances(a, b):
    table = jax.vmap(jax.vmap(dist, (None, 0)), (0, None))
    rows = [table(a[i:i + 1], b) for i in range(a.shape[0])]
    return {"dist": jnp.concatenate(rows, axis=0)}
