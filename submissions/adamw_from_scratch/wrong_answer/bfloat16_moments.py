# reason: dtype
# hint: the moments are kept in bfloat16 (like optax's mu_dtype option), so mu and nu come back as bfloat16 instead of float32.
# misreads: Every leaf is a JAX array of dtype `float32`, and the arithmetic is done in float32
import jax
import jax.numpy as jnp


def adamw(params, grads, lr, b1, b2, eps, weight_decay):
    tree_map = jax.tree_util.tree_map

    def step(carry, g):
        p, mu, nu, t = carry
        t = t + 1
        mu = tree_map(lambda m, x: ((1 - b1) * x + b1 * m).astype(jnp.bfloat16), mu, g)
        nu = tree_map(lambda v, x: ((1 - b2) * x * x + b2 * v).astype(jnp.bfloat16), nu, g)
        c1, c2 = 1 - b1 ** t, 1 - b2 ** t
        p = tree_map(lambda q, m, v: q - lr * ((m / c1) / (jnp.sqrt(v / c2) + eps) + weight_decay * q), p, mu, nu)
        return (p, mu, nu, t), None

    zeros = tree_map(lambda x: jnp.zeros_like(x, dtype=jnp.bfloat16), params)
    (p, mu, nu, _), _ = jax.lax.scan(step, (params, zeros, zeros, jnp.int32(0)), grads)
    return {"new_params": p, "mu": mu, "nu": nu}
