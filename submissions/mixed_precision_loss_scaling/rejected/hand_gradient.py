# reason: requirement
# The float16 backward pass is written out by hand: the same numbers, but the
# problem asks for jax.grad.
import jax.numpy as jnp

F16 = jnp.float16


def mixed_precision_step(params, x, y, loss_scale):
    x16, y16 = x.astype(F16), y.astype(F16)
    w16, b16 = params["w"].astype(F16), params["b"].astype(F16)
    r = x16 @ w16 + b16 - y16
    loss = jnp.mean(r ** 2)
    ct = (jnp.asarray(loss_scale, jnp.float32) / x.shape[0]).astype(F16)
    ct_r = ct * (2 * r)
    gw, gb = ct_r @ x16, jnp.sum(ct_r)
    finite = jnp.logical_and(jnp.all(jnp.isfinite(gw)), jnp.isfinite(gb))
    unscale = lambda g: jnp.where(finite, g.astype(jnp.float32) / loss_scale, 0.0)
    return {"grads": {"w": unscale(gw), "b": unscale(gb)}, "loss": loss, "finite": finite}
