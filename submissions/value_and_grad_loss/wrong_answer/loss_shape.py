# reason: shape
# hint: the loss is a scalar of shape (); reshaping it to (1,) (or using keepdims) returns the wrong shape.
# misreads: {"loss": <float32 ()>, "grads": {"w": <float32 (D,)>, "b": <float32 ()>}}
import jax
import jax.numpy as jnp


def mse(params, x, y):
    err = x @ params["w"] + params["b"] - y
    return 0.5 * jnp.mean(err * err)


def loss_and_grads(params, x, y):
    loss, grads = jax.value_and_grad(mse)(params, x, y)
    return {"loss": jnp.reshape(loss, (1,)), "grads": grads}
