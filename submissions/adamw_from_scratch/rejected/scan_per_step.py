# reason: requirement
# Calls lax.scan on one step at a time inside a Python loop over T: the scan runs and
# the outputs depend on it, but the traced program grows with the number of steps.
import jax
import jax.numpy as jnp


def adamw(params, grads, lr, b1, b2, eps, weight_decay):
    tree_map = jax.tree_util.tree_map

    def step(carry, g):
        p, mu, nu, t = carry
        t = t + 1
        mu = tree_map(lambda m, x: (1 - b1) * x + b1 * m, mu, g)
        nu = tree_map(lambda v, x: (1 - b2) * x * x + b2 * v, nu, g)
        c1, c2 = 1 - b1 ** t, 1 - b2 ** t
        p = tree_map(lambda q, m, v: q - lr * ((m / c1) / (jnp.sqrt(v / c2) + eps) + weight_decay * q), p, mu, nu)
        return (p, mu, nu, t), None

    zeros = tree_map(jnp.zeros_like, params)
    carry = (params, zeros, zeros, jnp.int32(0))
    for t in range(grads["w"].shape[0]):
        carry, _ = jax.lax.scan(step, carry, tree_map(lambda x: x[t:t + 1], grads))
    p, mu, nu, _ = carry
    return {"new_params": p, "mu": mu, "nu": nu}
