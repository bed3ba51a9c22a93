# The whole tree raveled into one flat vector (jax.flatten_util.ravel_pytree); the
# powers b1^t and b2^t are carried and multiplied once per step instead of recomputed,
# and the step size is folded as lr * sqrt(1 - b2^t) / (1 - b1^t) with eps * sqrt(1 - b2^t),
# which is the same update.
import jax
import jax.numpy as jnp
from jax.flatten_util import ravel_pytree


def adamw(params, grads, lr, b1, b2, eps, weight_decay):
    flat_p, unravel = ravel_pytree(params)
    steps = grads["w"].shape[0]
    # one row per step: the tree of that step's gradients, raveled the same way
    flat_g = jax.vmap(lambda g: ravel_pytree(g)[0])(grads)

    def step(carry, g):
        p, m, v, pow1, pow2 = carry
        pow1 = pow1 * b1
        pow2 = pow2 * b2
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        root = jnp.sqrt(1 - pow2)
        alpha = lr * root / (1 - pow1)
        p = p - alpha * m / (jnp.sqrt(v) + eps * root) - lr * weight_decay * p
        return (p, m, v, pow1, pow2), None

    zero = jnp.zeros_like(flat_p)
    one = jnp.float32(1.0)
    (p, m, v, _, _), _ = jax.lax.scan(step, (flat_p, zero, zero, one, one), flat_g, length=steps)
    return {"new_params": unravel(p), "mu": unravel(m), "nu": unravel(v)}
