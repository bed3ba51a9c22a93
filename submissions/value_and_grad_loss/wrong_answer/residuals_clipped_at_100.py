# reason: value
# hint: the loss squares every residual as it is; clipping residuals changes the loss and its gradients wherever one is large (the inputs allow residuals up to 620).
# misreads: The loss is half the mean squared error
# A "robust" loss that clips each residual at +-100 before squaring. The constraints allow
# residuals up to 6 * 10 * 10 + 10 + 10 = 620, so the loss and both gradients are wrong
# wherever a residual is that large.
import jax
import jax.numpy as jnp


def mse(params, x, y):
    err = jnp.clip(x @ params["w"] + params["b"] - y, -100.0, 100.0)
    return 0.5 * jnp.mean(err * err)


def loss_and_grads(params, x, y):
    loss, grads = jax.value_and_grad(mse)(params, x, y)
    return {"loss": loss, "grads": grads}
