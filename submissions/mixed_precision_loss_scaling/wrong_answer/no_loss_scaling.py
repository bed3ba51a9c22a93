# reason: value
# hint: the loss is never multiplied by loss_scale, so small gradients underflow in float16 and overflow is never detected where the scaled pass would overflow.
# misreads: Scale the loss in `float16`: `scaled = loss * S16` with `S16 = float16(loss_scale)`.
import jax
import jax.numpy as jnp

F16 = jnp.float16


def scaled_loss(params, x, y, loss_scale):
    pred = x.astype(F16) @ params["w"].astype(F16) + params["b"].astype(F16)
    loss = jnp.mean((pred - y.astype(F16)) ** 2)
    return loss * jnp.asarray(loss_scale, F16), loss


def mixed_precision_step(params, x, y, loss_scale):
    g, loss = jax.grad(lambda p: (lambda s, l: (l, l))(*scaled_loss(p, x, y, loss_scale)), has_aux=True)(params)
    finite = jnp.logical_and(jnp.all(jnp.isfinite(g["w"])), jnp.isfinite(g["b"]))
    grads = {k: jnp.where(finite, v, 0.0) for k, v in g.items()}
    return {"grads": grads, "loss": loss, "finite": finite}
