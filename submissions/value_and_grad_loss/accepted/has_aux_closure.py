# A closure over the data, has_aux to carry the predictions out alongside the loss.
import jax
import jax.numpy as jnp


def loss_and_grads(params, x, y):
    def loss_fn(p):
        pred = x @ p["w"] + p["b"]
        return 0.5 * jnp.mean(jnp.square(pred - y)), pred

    (loss, _pred), grads = jax.value_and_grad(loss_fn, has_aux=True)(params)
    return {"loss": loss, "grads": grads}
