# reason: requirement
# attack: the gradient of an x + stop_gradient(q - x) surrogate, with the custom rule run on a zero cotangent beside it; stopped by the dependence probe on the rule's bwd (the gradient must come through what bwd returns)
# straight_through_estimator: rejected/grad_of_surrogate.py, except that the loss
# jax.grad differentiates also adds 0 * sum(quantize(v)). The custom rule's fwd
# and bwd both run under jax.grad (bwd gets a zero cotangent), but every bit of
# the returned gradient comes from the x + stop_gradient(q - x) surrogate.
import jax
import jax.numpy as jnp
from jax import lax


@jax.custom_vjp
def quantize(x, step):
    return jnp.round(x / step) * step


def fwd(x, step):
    return quantize(x, step), (x, step)


def bwd(res, g):
    x, step = res
    return g * 0.0, jnp.zeros_like(step)   # not even the STE rule


quantize.defvjp(fwd, bwd)


def surrogate(x, step):
    q = jnp.round(x / step) * step
    inside = jnp.abs(x) <= 1.0
    return jnp.where(inside, x + lax.stop_gradient(q - x), lax.stop_gradient(q))


def ste_quantize(x, step, c):
    def loss(v):
        return 0.5 * jnp.sum(c * surrogate(v, step) ** 2) + 0.0 * jnp.sum(quantize(v, step))

    return {"value": surrogate(x, step), "grad": jax.grad(loss)(x)}
