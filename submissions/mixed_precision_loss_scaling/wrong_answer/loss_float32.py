# reason: dtype
# hint: the loss must be returned as the float16 value the forward pass computed, not converted to float32.
# misreads: where `loss` is the **unscaled** `float16` loss of step 2.
import jax
import jax.numpy as jnp

F16 = jnp.float16


def scaled_loss(params, x, y, loss_scale):
    pred = x.astype(F16) @ params["w"].astype(F16) + params["b"].astype(F16)
    loss = jnp.mean((pred - y.astype(F16)) ** 2)
    return loss * jnp.asarray(loss_scale, F16), loss


def mixed_precision_step(params, x, y, loss_scale):
    g, loss = jax.grad(scaled_loss, has_aux=True)(params, x, y, loss_scale)
    finite = jnp.logical_and(jnp.all(jnp.isfinite(g["w"])), jnp.isfinite(g["b"]))
    grads = {k: jnp.where(finite, v / loss_scale, 0.0) for k, v in g.items()}
    return {"grads": grads, "loss": loss.astype(jnp.float32), "finite": finite}
