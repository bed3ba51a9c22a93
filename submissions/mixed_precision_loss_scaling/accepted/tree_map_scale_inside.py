# The scale is folded into the mean; tree utilities handle both leaves alike.
import functools

import jax
import jax.numpy as jnp
from jax import tree_util


def half_loss(params, x, y):
    p = tree_util.tree_map(lambda a: a.astype(jnp.float16), params)
    err = jnp.dot(x.astype(jnp.float16), p["w"]) + p["b"] - y.astype(jnp.float16)
    return err ** 2


def mixed_precision_step(params, x, y, loss_scale):

    def objective(p):
        sq = half_loss(p, x, y)
        return jnp.mean(sq * jnp.asarray(loss_scale, jnp.float16)), jnp.mean(sq)

    scaled, loss = jax.grad(objective, has_aux=True)(params)
    ok = tree_util.tree_reduce(jnp.logical_and, tree_util.tree_map(lambda g: jnp.isfinite(g).all(), scaled))
    unscale = functools.partial(lambda g, k: jnp.where(k, g.astype(jnp.float32) / loss_scale, jnp.float32(0)), k=ok)
    return {"grads": tree_util.tree_map(unscale, scaled), "loss": loss, "finite": ok}
