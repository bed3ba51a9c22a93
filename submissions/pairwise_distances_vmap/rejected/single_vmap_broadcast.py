# reason: requirement
# One vmap over the rows of a; inside, broadcasting against all of b does the second level.
# Correct numbers, but the problem asks for a vmap nested in a vmap.
import jax
import jax.numpy as jnp


def row_to_all(u, b):
    return jnp.sqrt(jnp.sum((u[None, :] - b) ** 2, axis=1))


def pairwise_distances(a, b):
    return {"dist": jax.vmap(row_to_all, in_axes=(0, None))(a, b)}
