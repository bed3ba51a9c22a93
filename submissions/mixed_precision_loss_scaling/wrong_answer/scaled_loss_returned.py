# reason: value
# hint: report the unscaled float16 loss; this returns the loss multiplied by loss_scale.
# misreads: where `loss` is the **unscaled** `float16` loss of step 2.
import jax
import jax.numpy as jnp

F16 = jnp.float16


def scaled_loss(params, x, y, loss_scale):
    pred = x.astype(F16) @ params["w"].astype(F16) + params["b"].astype(F16)
    loss = jnp.mean((pred - y.astype(F16)) ** 2)
    return loss * jnp.asarray(loss_scale, F16), loss


def mixed_precision_step(params, x, y, loss_scale):
    g, loss = jax.grad(lambda p: (lambda s, l: (s, s))(*scaled_loss(p, x, y, loss_scale)), has_aux=True)(params)
    finite = jnp.logical_and(jnp.all(jnp.isfinite(g["w"])), jnp.isfinite(g["b"]))
    grads = {k: jnp.where(finite, v / loss_scale, 0.0) for k, v in g.items()}
    return {"grads": grads, "loss": loss, "finite": finite}
