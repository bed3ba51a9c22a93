# argnums given as a NumPy integer (the position of the parameters).
import jax
import jax.numpy as jnp
import numpy as np

PARAMS_POS = np.int64(2)


def mse(x, y, params):
    err = x @ params["w"] + params["b"] - y
    return 0.5 * jnp.mean(err * err)


def loss_and_grads(params, x, y):
    loss, grads = jax.value_and_grad(mse, argnums=PARAMS_POS)(x, y, params)
    return {"loss": loss, "grads": grads}
