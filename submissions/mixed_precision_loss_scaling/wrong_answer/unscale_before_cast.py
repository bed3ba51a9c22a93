# reason: value
# hint: dividing by the loss scale while the gradient is still float16 underflows small gradients again; convert to float32 first, then divide.
# misreads: If `finite`, each gradient is converted to `float32` **first** and then divided by `loss_scale` in `float32`.
import jax
import jax.numpy as jnp

F16 = jnp.float16


def mixed_precision_step(params, x, y, loss_scale):
    p16 = jax.tree_util.tree_map(lambda a: a.astype(F16), params)

    def scaled_loss(p):
        loss = jnp.mean((x.astype(F16) @ p["w"] + p["b"] - y.astype(F16)) ** 2)
        return loss * jnp.asarray(loss_scale, F16), loss

    g16, loss = jax.grad(scaled_loss, has_aux=True)(p16)
    finite = jnp.logical_and(jnp.all(jnp.isfinite(g16["w"])), jnp.isfinite(g16["b"]))
    s16 = jnp.asarray(loss_scale, F16)
    grads = {k: jnp.where(finite, (v / s16).astype(jnp.float32), 0.0) for k, v in g16.items()}
    return {"grads": grads, "loss": loss, "finite": finite}
