# reason: requirement
# Evaluates the loss and calls jax.grad separately: correct numbers, two passes, no value_and_grad.
import jax
import jax.numpy as jnp


def mse(params, x, y):
    err = x @ params["w"] + params["b"] - y
    return 0.5 * jnp.mean(err * err)


def loss_and_grads(params, x, y):
    return {"loss": mse(params, x, y), "grads": jax.grad(mse)(params, x, y)}
