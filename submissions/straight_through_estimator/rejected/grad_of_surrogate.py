# reason: requirement
# The custom rule runs (through jax.vjp), but the gradient that is returned comes
# from jax.grad of a stop_gradient surrogate that never calls the custom quantiser.
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
    return jnp.where(jnp.abs(x) <= 1.0, g, 0.0), jnp.zeros_like(step)


quantize.defvjp(fwd, bwd)


def surrogate(x, step):
    q = jnp.round(x / step) * step
    inside = jnp.abs(x) <= 1.0
    return jnp.where(inside, x + lax.stop_gradient(q - x), lax.stop_gradient(q))


def ste_quantize(x, step, c):
    value, pullback = jax.vjp(quantize, x, step)
    pullback(jnp.ones_like(value))
    grad = jax.grad(lambda v: 0.5 * jnp.sum(c * surrogate(v, step) ** 2))(x)
    return {"value": value, "grad": grad}
