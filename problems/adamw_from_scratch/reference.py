import jax
import jax.numpy as jnp


def adamw(params, grads, lr, b1, b2, eps, weight_decay):
    tree_map = jax.tree_util.tree_map
    zeros = tree_map(jnp.zeros_like, params)

    def step(carry, g):
        p, mu, nu, count = carry
        count = count + 1  # the step number t = 1, 2, ..., T
        mu = tree_map(lambda m, gi: (1 - b1) * gi + b1 * m, mu, g)
        nu = tree_map(lambda v, gi: (1 - b2) * gi * gi + b2 * v, nu, g)
        c1 = 1 - b1 ** count  # bias corrections, computed fresh from t
        c2 = 1 - b2 ** count

        def new_param(pi, m, v):
            update = (m / c1) / (jnp.sqrt(v / c2) + eps)
            return pi - lr * (update + weight_decay * pi)  # decoupled weight decay

        p = tree_map(new_param, p, mu, nu)
        return (p, mu, nu, count), None

    (p, mu, nu, _), _ = jax.lax.scan(step, (params, zeros, zeros, jnp.int32(0)), grads)
    return {"new_params": p, "mu": mu, "nu": nu}
