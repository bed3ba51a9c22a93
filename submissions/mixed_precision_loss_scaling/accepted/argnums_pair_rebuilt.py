# w and b as two separate arguments (argnums=(0, 1)); the pair of float16 gradients is
# checked, converted and unscaled leaf by leaf and put back into a dict.
import jax
import jax.numpy as jnp


def mixed_precision_step(params, x, y, loss_scale):
    x16, y16 = x.astype(jnp.float16), y.astype(jnp.float16)
    s16 = jnp.float16(loss_scale)

    def scaled_loss(w16, b16):
        r = x16 @ w16 + b16 - y16
        loss = jnp.mean(r ** 2)
        return loss * s16, loss

    (gw, gb), loss = jax.grad(scaled_loss, argnums=(0, 1), has_aux=True)(
        params["w"].astype(jnp.float16), params["b"].astype(jnp.float16))
    finite = jnp.isfinite(gw).all() & jnp.isfinite(gb)
    inv = 1.0 / jnp.float32(loss_scale)  # a power of two: exact
    grads = {name: jnp.where(finite, g.astype(jnp.float32) * inv, jnp.zeros(g.shape, jnp.float32))
             for name, g in (("w", gw), ("b", gb))}
    return {"grads": grads, "loss": loss, "finite": finite}
