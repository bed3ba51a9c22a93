# reason: value
# hint: floor(x / step) rounds down; q(x) rounds to the nearest grid point (halfway cases to even).
# misreads: where `round` rounds to the nearest integer and **halfway cases go to the nearest even integer**
import jax
import jax.numpy as jnp


@jax.custom_vjp
def quantize(x, step):
    return jnp.floor(x / step) * step


def fwd(x, step):
    return quantize(x, step), (x, step)


def bwd(res, g):
    x, step = res
    return jnp.where(jnp.abs(x) <= 1.0, g, 0.0), jnp.zeros_like(step)


quantize.defvjp(fwd, bwd)


def ste_quantize(x, step, c):
    def loss(x):
        return 0.5 * jnp.sum(c * quantize(x, step) ** 2)

    return {"value": quantize(x, step), "grad": jax.grad(loss)(x)}
