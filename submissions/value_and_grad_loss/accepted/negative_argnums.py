# The parameters come last; value_and_grad differentiates argnums=-1.
import jax
import jax.numpy as jnp


def mse(x, y, params):
    err = x @ params["w"] + params["b"] - y
    return 0.5 * jnp.mean(err * err)


def loss_and_grads(params, x, y):
    loss, grads = jax.value_and_grad(mse, argnums=-1)(x, y, params)
    return {"loss": loss, "grads": grads}
