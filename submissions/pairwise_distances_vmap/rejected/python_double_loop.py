# reason: requirement
# Two Python loops over the rows, no vmap at all.
import jax.numpy as jnp


def pairwise_distances(a, b):
    rows = []
    for i in range(a.shape[0]):
        rows.append(jnp.stack([jnp.sqrt(jnp.sum((a[i] - b[j]) ** 2)) for j in range(b.shape[0])]))
    return {"dist": jnp.stack(rows)}
