# reason: requirement
# attack: the whole table by broadcasting inside two jax.vmap calls over axes of one element; stopped by the dependence probe's lane factors
# pairwise_distances_vmap: the whole table by broadcasting, wrapped in two vacuous
# jax.vmap calls over axes of size 1. Neither vmap maps over the rows of a or b.
import jax
import jax.numpy as jnp


def pairwise_distances(a, b):
    def table(_i, _j):
        d = a[:, None, :] - b[None, :, :]
        return jnp.sqrt(jnp.sum(d * d, axis=-1))

    one = jnp.zeros(1)
    out = jax.vmap(jax.vmap(table, in_axes=(None, 0)), in_axes=(0, None))(one, one)
    return {"dist": out[0, 0]}
