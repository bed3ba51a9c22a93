# reason: value
# hint: the gradient is asked for, not the descent step direction; negating it flips its sign.
# misreads: where `loss` is the value above and `grads` its gradient with respect to `params`, with the same structure as `params`.
import jax
import jax.numpy as jnp


def mse(params, x, y):
    err = x @ params["w"] + params["b"] - y
    return 0.5 * jnp.mean(err * err)


def loss_and_grads(params, x, y):
    loss, grads = jax.value_and_grad(mse)(params, x, y)
    return {"loss": loss, "grads": jax.tree_util.tree_map(lambda g: -g, grads)}
