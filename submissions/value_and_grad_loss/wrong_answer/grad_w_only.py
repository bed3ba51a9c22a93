# reason: structure
# hint: grads must hold the gradient for every parameter, 'w' and 'b', like params itself.
# misreads: where `loss` is the value above and `grads` its gradient with respect to `params`, with the same structure as `params`.
import jax
import jax.numpy as jnp


def mse(w, b, x, y):
    err = x @ w + b - y
    return 0.5 * jnp.mean(err * err)


def loss_and_grads(params, x, y):
    loss, gw = jax.value_and_grad(mse)(params["w"], params["b"], x, y)
    return {"loss": loss, "grads": {"w": gw}}
