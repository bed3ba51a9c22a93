# reason: value
# hint: the step count stays at 1, so every step uses the first step's bias correction 1 - b; it must be 1 - b^t at step t.
# misreads: the step count $t$ starts at **1** on the first step (so the first bias correction is $1 - b_1$, never $1 - b_1^0 = 0$) and goes up by one every step
import jax
import jax.numpy as jnp


def adamw(params, grads, lr, b1, b2, eps, weight_decay):
    tree_map = jax.tree_util.tree_map

    def step(carry, g):
        p, mu, nu, t = carry
        mu = tree_map(lambda m, x: (1 - b1) * x + b1 * m, mu, g)
        nu = tree_map(lambda v, x: (1 - b2) * x * x + b2 * v, nu, g)
        c1, c2 = 1 - b1 ** t, 1 - b2 ** t
        p = tree_map(lambda q, m, v: q - lr * ((m / c1) / (jnp.sqrt(v / c2) + eps) + weight_decay * q), p, mu, nu)
        return (p, mu, nu, t), None

    zeros = tree_map(jnp.zeros_like, params)
    (p, mu, nu, _), _ = jax.lax.scan(step, (params, zeros, zeros, jnp.int32(1)), grads)
    return {"new_params": p, "mu": mu, "nu": nu}
