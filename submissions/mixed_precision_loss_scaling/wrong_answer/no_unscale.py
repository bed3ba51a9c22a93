# reason: value
# hint: the gradients are still multiplied by the loss scale: divide them by loss_scale (in float32) before returning them.
# misreads: If `finite`, each gradient is converted to `float32` **first** and then divided by `loss_scale` in `float32`.
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
    grads = {k: jnp.where(finite, v, 0.0) for k, v in g.items()}
    return {"grads": grads, "loss": loss, "finite": finite}
