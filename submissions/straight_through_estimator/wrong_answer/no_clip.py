# reason: value
# hint: the straight-through rule is clipped: the gradient passes only where |x| <= 1, and is zero outside.
# misreads: The backward pass uses the clipped straight-through rule
import jax
import jax.numpy as jnp


@jax.custom_vjp
def quantize(x, step):
    return jnp.round(x / step) * step


def fwd(x, step):
    return quantize(x, step), (x, step)


def bwd(res, g):
    x, step = res
    return g, jnp.zeros_like(step)


quantize.defvjp(fwd, bwd)


def ste_quantize(x, step, c):
    def loss(x):
        return 0.5 * jnp.sum(c * quantize(x, step) ** 2)

    return {"value": quantize(x, step), "grad": jax.grad(loss)(x)}
