# reason: value
# hint: |u|^2 + |v|^2 - 2 u.v cancels catastrophically in float32 for equal or close rows (large values give distances far from 0); subtract first.
# misreads: The expansion $\lVert u \rVert^2 + \lVert v \rVert^2 - 2\, u \cdot v$ cancels catastrophically in float32 for close rows and fails here.
import jax
import jax.numpy as jnp


def dist(u, v):
    sq = jnp.dot(u, u) + jnp.dot(v, v) - 2.0 * jnp.dot(u, v)
    return jnp.sqrt(jnp.maximum(sq, 0.0))


def pairwise_distances(a, b):
    return {"dist": jax.vmap(jax.vmap(dist, (None, 0)), (0, None))(a, b)}
