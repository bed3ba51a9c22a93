# reason: requirement
# Calls jax.grad and ignores what it returns; the gradients come from a hand-written
# float16 backward pass. The judge perturbs the result of jax.grad and sees that
# 'grads' does not move.
import jax
import jax.numpy as jnp

F16 = jnp.float16


def mixed_precision_step(params, x, y, loss_scale):
    x16, y16 = x.astype(F16), y.astype(F16)

    def scaled_loss(p):
        r = x16 @ p["w"].astype(F16) + p["b"].astype(F16) - y16
        loss = jnp.mean(r ** 2)
        return loss * jnp.asarray(loss_scale, F16), loss

    _unused, loss = jax.grad(scaled_loss, has_aux=True)(params)
    r = x16 @ params["w"].astype(F16) + params["b"].astype(F16) - y16
    ct_r = (jnp.asarray(loss_scale, jnp.float32) / x.shape[0]).astype(F16) * (2 * r)
    gw, gb = ct_r @ x16, jnp.sum(ct_r)
    finite = jnp.logical_and(jnp.all(jnp.isfinite(gw)), jnp.isfinite(gb))
    unscale = lambda g: jnp.where(finite, g.astype(jnp.float32) / loss_scale, 0.0)
    return {"grads": {"w": unscale(gw), "b": unscale(gb)}, "loss": loss, "finite": finite}
