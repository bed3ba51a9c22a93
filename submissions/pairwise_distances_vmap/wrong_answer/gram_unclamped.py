# reason: nan
# hint: without clamping, the rounding error of |u|^2 + |v|^2 - 2 u.v can go below zero and sqrt returns NaN.
# misreads: Accurate at zero: when `a[i]` equals `b[j]` the distance is `0.0` (not NaN, not a small positive number)
import jax
import jax.numpy as jnp


def dist(u, v):
    return jnp.sqrt(jnp.dot(u, u) + jnp.dot(v, v) - 2.0 * jnp.dot(u, v))


def pairwise_distances(a, b):
    return {"dist": jax.vmap(jax.vmap(dist, (None, 0)), (0, None))(a, b)}
