# value_and_grad over the params dict; the gradient comes back as a dict.
import jax
import jax.numpy as jnp


def half_mse(params, x, y):
    residual = jnp.dot(x, params["w"]) + params["b"] - y
    return jnp.mean(residual ** 2) / 2


def loss_and_grads(params, x, y):
    value, grads = jax.value_and_grad(half_mse)(params, x, y)
    return {"loss": value, "grads": {"w": grads["w"], "b": grads["b"]}}
