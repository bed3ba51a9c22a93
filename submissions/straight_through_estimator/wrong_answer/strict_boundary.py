# reason: value
# hint: the boundary |x| = 1 belongs to the pass-through region: use <=, not <.
# misreads: (the boundary $|x| = 1$ included)
import jax
import jax.numpy as jnp


@jax.custom_vjp
def quantize(x, step):
    return jnp.round(x / step) * step


def fwd(x, step):
    return quantize(x, step), (x, step)


def bwd(res, g):
    x, step = res
    return jnp.where(jnp.abs(x) < 1.0, g, 0.0), jnp.zeros_like(step)


quantize.defvjp(fwd, bwd)


def ste_quantize(x, step, c):
    def loss(x):
        return 0.5 * jnp.sum(c * quantize(x, step) ** 2)

    return {"value": quantize(x, step), "grad": jax.grad(loss)(x)}
