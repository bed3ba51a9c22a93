# reason: shape
# hint: the in_axes are swapped, so the outer vmap runs over b and the table is (M, N) instead of (N, M).
# misreads: Rows index `a`, columns index `b`.
import jax
import jax.numpy as jnp


def dist(u, v):
    return jnp.sqrt(jnp.sum((u - v) ** 2))


def pairwise_distances(a, b):
    return {"dist": jax.vmap(jax.vmap(dist, (0, None)), (None, 0))(a, b)}
