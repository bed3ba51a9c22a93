# reason: value
# hint: u[:, None] - v[None, :] broadcasts two rows into a (D, D) table of all coordinate pairs; subtract matching coordinates only.
# misreads: $\mathrm{dist}[i, j] = \sqrt{\sum_k \big(a[i, k] - b[j, k]\big)^2}$
import jax
import jax.numpy as jnp


def dist(u, v):
    return jnp.sqrt(jnp.sum((u[:, None] - v[None, :]) ** 2))


def pairwise_distances(a, b):
    return {"dist": jax.vmap(jax.vmap(dist, (None, 0)), (0, None))(a, b)}
