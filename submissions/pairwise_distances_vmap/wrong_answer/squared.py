# reason: value
# hint: the square root is missing: this returns squared distances.
# misreads: The function the inner `vmap` maps returns the distance itself, square root included.
import jax
import jax.numpy as jnp


def dist(u, v):
    return jnp.sum((u - v) ** 2)


def pairwise_distances(a, b):
    return {"dist": jax.vmap(jax.vmap(dist, (None, 0)), (0, None))(a, b)}
