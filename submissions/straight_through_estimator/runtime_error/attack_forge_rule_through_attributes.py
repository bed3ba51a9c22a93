# reason: exception
# attack: computes the straight-through gradient with the stop_gradient trick (rejected on its own) and forges the runtime record by calling the custom_vjp's stored rules directly (quantize.fwd / quantize.bwd) inside jax.grad, so that "grad of custom_vjp.fwd" and "custom_vjp.bwd ran" are recorded although JAX never used the rule; stopped by the language policy (the stored functions of custom_vjp/custom_jvp objects are denied attributes)
import jax
import jax.numpy as jnp


@jax.custom_vjp
def quantize(x, step):
    return jnp.round(x / step) * step


def quantize_fwd(x, step):
    return quantize(x, step), (x, step)


def quantize_bwd(res, g):
    x, step = res
    return jnp.where(jnp.abs(x) <= 1.0, g, jnp.zeros_like(g)), jnp.zeros_like(step)


quantize.defvjp(quantize_fwd, quantize_bwd)


def ste(x, step):
    q = jnp.round(x / step) * step
    xc = jnp.clip(x, -1.0, 1.0)
    return xc + jax.lax.stop_gradient(q - xc)


def ste_quantize(x, step, c):
    def loss(v):
        _forged = quantize.fwd(v, step)
        _also = quantize.bwd((v, step), v)
        return 0.5 * jnp.sum(c * ste(v, step) ** 2)

    return {"value": quantize(x, step), "grad": jax.grad(loss)(x)}
