# reason: value
# hint: this is the L1 (Manhattan) distance, the sum of absolute differences; the task asks for the Euclidean one.
# misreads: where `dist[i, j]` is the Euclidean distance between row `a[i]` and row `b[j]`
import jax
import jax.numpy as jnp


def dist(u, v):
    return jnp.sum(jnp.abs(u - v))


def pairwise_distances(a, b):
    return {"dist": jax.vmap(jax.vmap(dist, (None, 0)), (0, None))(a, b)}
