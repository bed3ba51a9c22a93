# reason: value
# hint: the backward rule returns the true derivative of rounding (zero), so no gradient gets through; the STE passes g where |x| <= 1.
# misreads: The *straight-through estimator* (STE) keeps the rounded forward pass but pretends, in the backward pass, that the quantiser was the identity, at least where the input is not too large.
import jax
import jax.numpy as jnp


@jax.custom_vjp
def quantize(x, step):
    return jnp.round(x / step) * step


def fwd(x, step):
    return quantize(x, step), (x, step)


def bwd(res, g):
    x, step = res
    return jnp.zeros_like(g), jnp.zeros_like(step)


quantize.defvjp(fwd, bwd)


def ste_quantize(x, step, c):
    def loss(x):
        return 0.5 * jnp.sum(c * quantize(x, step) ** 2)

    return {"value": quantize(x, step), "grad": jax.grad(loss)(x)}
