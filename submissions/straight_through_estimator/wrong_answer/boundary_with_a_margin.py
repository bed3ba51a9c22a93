# reason: value
# hint: the pass-through region ends at |x| = 1 exactly; a margin "for rounding" lets gradients through for inputs a few ulps above 1, which are valid inputs and must get none.
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
    # A margin for float error at the boundary.
    return jnp.where(jnp.abs(x) <= 1.0 + 1e-6, g, 0.0), jnp.zeros_like(step)


quantize.defvjp(fwd, bwd)


def ste_quantize(x, step, c):
    def loss(x):
        return 0.5 * jnp.sum(c * quantize(x, step) ** 2)

    return {"value": quantize(x, step), "grad": jax.grad(loss)(x)}
