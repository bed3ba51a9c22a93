# reason: value
# hint: the clip tests the quantised value q(x); the statement tests the input x (|x| <= 1).
# misreads: The test is on the input $x$, not on the quantised value $q(x)$.
import jax
import jax.numpy as jnp


@jax.custom_vjp
def quantize(x, step):
    return jnp.round(x / step) * step


def fwd(x, step):
    return quantize(x, step), (x, step)


def bwd(res, g):
    x, step = res
    return jnp.where(jnp.abs(jnp.round(x / step) * step) <= 1.0, g, 0.0), jnp.zeros_like(step)


quantize.defvjp(fwd, bwd)


def ste_quantize(x, step, c):
    def loss(x):
        return 0.5 * jnp.sum(c * quantize(x, step) ** 2)

    return {"value": quantize(x, step), "grad": jax.grad(loss)(x)}
