# reason: requirement
# Differentiates through the custom rule, throws the result away and returns a
# gradient written by hand: the probe sees that 'grad' ignores the backward rule.
import jax
import jax.numpy as jnp


@jax.custom_vjp
def quantize(x, step):
    return jnp.round(x / step) * step


def fwd(x, step):
    return quantize(x, step), (x, step)


def bwd(res, g):
    x, step = res
    return jnp.where(jnp.abs(x) <= 1.0, g, 0.0), jnp.zeros_like(step)


quantize.defvjp(fwd, bwd)


def ste_quantize(x, step, c):
    q = quantize(x, step)
    _unused = jax.grad(lambda v: 0.5 * jnp.sum(c * quantize(v, step) ** 2))(x)
    return {"value": q, "grad": jnp.where(jnp.abs(x) <= 1.0, c * q, 0.0)}
