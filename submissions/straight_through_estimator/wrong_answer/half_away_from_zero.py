# reason: value
# hint: rounding halves away from zero (2.5 -> 3) is not round-half-to-even (2.5 -> 2).
# misreads: **halfway cases go to the nearest even integer** (what `jnp.round` does: 0.5 becomes 0, 1.5 and 2.5 become 2, -0.5 becomes -0)
import jax
import jax.numpy as jnp


@jax.custom_vjp
def quantize(x, step):
    return jnp.sign(x) * jnp.floor(jnp.abs(x) / step + 0.5) * step


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
