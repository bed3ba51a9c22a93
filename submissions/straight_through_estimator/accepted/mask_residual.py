# fwd saves the pass-through mask itself as the residual; has_aux returns the value.
import jax
import jax.numpy as jnp
from jax import custom_vjp as cvjp


def _q(x, step):
    return jnp.round(x / step) * step


quant = cvjp(_q)


def _fwd(x, step):
    mask = jnp.abs(x) <= 1
    return _q(x, step), (mask, step)


def _bwd(res, g):
    mask, step = res
    return jnp.where(mask, g, 0.0), 0.0 * step


quant.defvjp(_fwd, _bwd)


def ste_quantize(x, step, c):
    def loss(x):
        v = quant(x, step)
        return 0.5 * jnp.dot(c, v * v), v

    grad, value = jax.grad(loss, has_aux=True)(x)
    return {"value": value, "grad": grad}
