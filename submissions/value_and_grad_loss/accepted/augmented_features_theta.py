# The bias trick: a column of ones appended to x, and w and b packed into one vector
# theta; value_and_grad of theta, then the gradient is split into w and b.
import jax
import jax.numpy as jnp


def loss_and_grads(params, x, y):
    d = x.shape[1]
    x1 = jnp.hstack([x, jnp.ones((x.shape[0], 1), x.dtype)])
    theta = jnp.append(params["w"], params["b"])

    def loss(th):
        r = x1 @ th - y
        return 0.5 * jnp.mean(r ** 2)

    value, g = jax.value_and_grad(loss)(theta)
    return {"loss": value, "grads": {"w": g[:d], "b": g[d]}}
