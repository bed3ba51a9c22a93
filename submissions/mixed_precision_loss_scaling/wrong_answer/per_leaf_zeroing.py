# reason: value
# hint: one non-finite scaled gradient skips the whole step: zero both leaves, not only the leaf that overflowed.
# misreads: `finite` is true when every entry of both scaled gradients is finite (no `inf`, no `NaN`).
import jax
import jax.numpy as jnp

F16 = jnp.float16


def scaled_loss(params, x, y, loss_scale):
    pred = x.astype(F16) @ params["w"].astype(F16) + params["b"].astype(F16)
    loss = jnp.mean((pred - y.astype(F16)) ** 2)
    return loss * jnp.asarray(loss_scale, F16), loss


def mixed_precision_step(params, x, y, loss_scale):
    g, loss = jax.grad(scaled_loss, has_aux=True)(params, x, y, loss_scale)
    ok = {k: jnp.all(jnp.isfinite(v)) for k, v in g.items()}
    grads = {k: jnp.where(ok[k], v / loss_scale, 0.0) for k, v in g.items()}
    return {"grads": grads, "loss": loss, "finite": jnp.logical_and(ok["w"], ok["b"])}
