import jax
import jax.numpy as jnp


@jax.custom_vjp
def quantize(x, step):
    # jnp.round rounds halves to the nearest even integer.
    return jnp.round(x / step) * step


def quantize_fwd(x, step):
    return quantize(x, step), (x, step)


def quantize_bwd(res, g):
    x, step = res
    # Straight-through: the identity where |x| <= 1, nothing outside.
    # The grid step gets no gradient.
    return jnp.where(jnp.abs(x) <= 1.0, g, jnp.zeros_like(g)), jnp.zeros_like(step)


quantize.defvjp(quantize_fwd, quantize_bwd)


def ste_quantize(x, step, c):
    def loss(x):
        q = quantize(x, step)
        return 0.5 * jnp.sum(c * q * q)

    return {"value": quantize(x, step), "grad": jax.grad(loss)(x)}
