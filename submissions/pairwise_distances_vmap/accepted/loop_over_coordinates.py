# Nested vmap over the rows of a and of b; inside, the squared differences are summed
# with a Python loop over the coordinates (D is at most 4). The statement forbids a loop
# over rows, not over coordinates: the program grows with D, never with N or M.
import jax
import jax.numpy as jnp


def distance(u, v):
    total = jnp.zeros((), u.dtype)
    for k in range(u.shape[0]):
        d = u[k] - v[k]
        total = total + d * d
    return jnp.sqrt(total)


def pairwise_distances(a, b):
    return {"dist": jax.vmap(lambda u: jax.vmap(lambda v: distance(u, v))(b))(a)}
