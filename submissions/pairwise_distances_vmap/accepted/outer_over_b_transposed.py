# The outer vmap runs over b and the inner one over a, giving (M, N); a transpose fixes the layout.
from jax import numpy as np
from jax import vmap


def dist(u, v):
    return np.sqrt(np.sum(np.square(u - v)))


def pairwise_distances(a, b):
    by_column = vmap(vmap(dist, in_axes=(0, None)), in_axes=(None, 0))(a, b)
    return {"dist": by_column.T}
