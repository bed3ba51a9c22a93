# reason: value
# hint: the loss averages over the N examples (a factor 1/(2N)); summing makes the loss and gradients N times too large.
# misreads: The loss is half the mean squared error
import jax
import jax.numpy as jnp


def mse(params, x, y):
    err = x @ params["w"] + params["b"] - y
    return 0.5 * jnp.sum(err * err)


def loss_and_grads(params, x, y):
    loss, grads = jax.value_and_grad(mse)(params, x, y)
    return {"loss": loss, "grads": grads}
