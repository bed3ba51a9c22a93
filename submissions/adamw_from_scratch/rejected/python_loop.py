# reason: requirement
# A Python loop over the T steps: correct numbers, but no jax.lax.scan, and the traced
# program grows with the number of steps.
import jax
import jax.numpy as jnp


def adamw(params, grads, lr, b1, b2, eps, weight_decay):
    tree_map = jax.tree_util.tree_map
    p = params
    mu = tree_map(jnp.zeros_like, params)
    nu = tree_map(jnp.zeros_like, params)
    for t in range(1, grads["w"].shape[0] + 1):
        g = tree_map(lambda x: x[t - 1], grads)
        mu = tree_map(lambda m, x: (1 - b1) * x + b1 * m, mu, g)
        nu = tree_map(lambda v, x: (1 - b2) * x * x + b2 * v, nu, g)
        c1, c2 = 1 - b1 ** t, 1 - b2 ** t
        p = tree_map(lambda q, m, v: q - lr * ((m / c1) / (jnp.sqrt(v / c2) + eps) + weight_decay * q), p, mu, nu)
    return {"new_params": p, "mu": mu, "nu": nu}
