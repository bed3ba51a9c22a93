# The custom_vjp function is built inside the entry and closes over step.
import jax
import jax.numpy as jnp


def ste_quantize(x, step, c):
    @jax.custom_vjp
    def q(v):
        return jnp.round(v / step) * step

    def q_fwd(v):
        return q(v), v

    def q_bwd(v, g):
        return (g * (jnp.abs(v) <= 1.0),)

    q.defvjp(q_fwd, q_bwd)
    grad = jax.grad(lambda v: 0.5 * jnp.sum(c * q(v) ** 2))(x)
    return {"value": q(x), "grad": grad}
