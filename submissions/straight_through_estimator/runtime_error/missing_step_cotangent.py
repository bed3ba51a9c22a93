# reason: exception
# bwd must return one cotangent per primal argument (x and step); it returns one.
import jax
import jax.numpy as jnp


@jax.custom_vjp
def quantize(x, step):
    return jnp.round(x / step) * step


def fwd(x, step):
    return quantize(x, step), x


def bwd(x, g):
    return (jnp.where(jnp.abs(x) <= 1.0, g, 0.0),)


quantize.defvjp(fwd, bwd)


def ste_quantize(x, step, c):
    grad = jax.grad(lambda v: 0.5 * jnp.sum(c * quantize(v, step) ** 2))(x)
    return {"value": quantize(x, step), "grad": grad}
