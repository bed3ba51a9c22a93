# reason: value
# hint: the prediction is x · w + b; leaving the bias out of the model gives the wrong loss and a zero bias gradient.
# misreads: $\mathrm{loss}(w, b) = \frac{1}{2N} \sum_n (x_n \cdot w + b - y_n)^2$
import jax
import jax.numpy as jnp


def mse(params, x, y):
    err = x @ params["w"] - y
    return 0.5 * jnp.mean(err * err)


def loss_and_grads(params, x, y):
    loss, grads = jax.value_and_grad(mse)(params, x, y)
    return {"loss": loss, "grads": grads}
