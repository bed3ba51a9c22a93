# reason: value
# hint: the loss is HALF the mean squared error; without the 0.5 the loss and the gradients are twice too large.
# misreads: The loss is half the mean squared error
import jax
import jax.numpy as jnp


def mse(params, x, y):
    err = x @ params["w"] + params["b"] - y
    return jnp.mean(err * err)


def loss_and_grads(params, x, y):
    loss, grads = jax.value_and_grad(mse)(params, x, y)
    return {"loss": loss, "grads": grads}
