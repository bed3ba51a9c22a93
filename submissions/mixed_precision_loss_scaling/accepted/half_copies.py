# Differentiate with respect to float16 copies of the parameters, then convert the
# float16 gradients to float32 before unscaling.
import jax
import jax.numpy as jnp


def mixed_precision_step(params, x, y, loss_scale):
    p16 = {"w": params["w"].astype(jnp.float16), "b": params["b"].astype(jnp.float16)}
    x16, y16 = x.astype(jnp.float16), y.astype(jnp.float16)
    s16 = jnp.asarray(loss_scale).astype(jnp.float16)

    def scaled_loss(p):
        r = x16 @ p["w"] + p["b"] - y16
        loss = jnp.mean(r * r)
        return loss * s16, loss

    g16, loss = jax.grad(scaled_loss, has_aux=True)(p16)
    finite = jnp.logical_and(jnp.all(jnp.isfinite(g16["w"])), jnp.isfinite(g16["b"]))
    w = jnp.where(finite, g16["w"].astype(jnp.float32) / loss_scale, 0.0)
    b = jnp.where(finite, g16["b"].astype(jnp.float32) / loss_scale, 0.0)
    return {"grads": {"w": w, "b": b}, "loss": loss, "finite": finite}
