# reason: value
# hint: sqrt(sum + 1e-12) keeps gradients finite but turns the distance of equal rows into 1e-6 instead of 0.
# misreads: Accurate at zero: when `a[i]` equals `b[j]` the distance is `0.0` (not NaN, not a small positive number)
import jax
import jax.numpy as jnp


def dist(u, v):
    return jnp.sqrt(jnp.sum((u - v) ** 2) + 1e-12)


def pairwise_distances(a, b):
    return {"dist": jax.vmap(jax.vmap(dist, (None, 0)), (0, None))(a, b)}
