# Aliased imports, a decorator, functools.partial and jax.jit.
from functools import partial

import jax as J
import jax.numpy as np
from jax import vmap as batched


@J.grad
def grad_one(params, x, y):
    return 0.5 * (np.dot(x, params["w"]) + params["b"] - y) ** 2


@partial(J.jit, static_argnums=())
def per_example_grad_clip(params, x, y, max_norm):
    per_ex = batched(grad_one, in_axes=(None, 0, 0))(params, x, y)
    sq = J.tree_util.tree_map(lambda g: np.sum(g.reshape(g.shape[0], -1) ** 2, axis=1), per_ex)
    norms = np.sqrt(sq["w"] + sq["b"])
    scale = np.minimum(1.0, max_norm / np.where(norms > 0, norms, 1.0))
    clipped = J.tree_util.tree_map(lambda g: g * scale.reshape((-1,) + (1,) * (g.ndim - 1)), per_ex)
    return {"grads": J.tree_util.tree_map(lambda g: g.mean(axis=0), clipped), "norms": norms}
