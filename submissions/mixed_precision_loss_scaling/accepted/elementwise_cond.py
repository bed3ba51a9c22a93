# Predictions as an elementwise product and a sum, lax.cond to skip the step,
# ravel_pytree for the finiteness test.
import jax
import jax.numpy as jnp
from jax import lax
from jax.flatten_util import ravel_pytree

F16 = jnp.float16


def _scaled_loss(params, x, y, scale):
    w, b = params["w"].astype(F16), params["b"].astype(F16)
    pred = jnp.sum(x.astype(F16) * w[None, :], axis=1) + b
    loss = jnp.mean(jnp.square(pred - y.astype(F16)))
    return scale.astype(F16) * loss, loss


def mixed_precision_step(params, x, y, loss_scale):
    scale = jnp.asarray(loss_scale, dtype=jnp.float32)
    scaled_grads, loss = jax.grad(_scaled_loss, has_aux=True)(params, x, y, scale)
    flat, unravel = ravel_pytree(scaled_grads)
    finite = jnp.all(jnp.isfinite(flat))
    grads = lax.cond(finite,
                     lambda f: unravel(f.astype(jnp.float32) / scale),
                     lambda f: unravel(jnp.zeros_like(f, dtype=jnp.float32)),
                     flat)
    return {"grads": grads, "loss": loss, "finite": finite}
