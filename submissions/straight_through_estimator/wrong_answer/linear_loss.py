# reason: value
# hint: the loss is 0.5 * sum(c * q**2), so its gradient carries the factor q(x); this differentiates sum(c * q).
# misreads: obtained by the chain rule through the custom backward pass: $\text{grad}[i] = c[i] \, q(x)[i] \, \frac{dq}{dx}[i]$
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
    def loss(x):
        return jnp.sum(c * quantize(x, step))

    return {"value": quantize(x, step), "grad": jax.grad(loss)(x)}
