# The two-vector distance keeps a length-1 axis (norm with keepdims=True), so the nested
# vmap gives an (N, M, 1) table; the trailing axis is squeezed away at the end.
import jax
import jax.numpy as jnp


def distance(u, v):
    return jnp.linalg.norm((u - v)[None, :], axis=-1)  # shape (1,)


def pairwise_distances(a, b):
    table = jax.vmap(jax.vmap(distance, in_axes=(None, 0)), in_axes=(0, None))(a, b)
    return {"dist": jnp.squeeze(table, axis=-1)}
