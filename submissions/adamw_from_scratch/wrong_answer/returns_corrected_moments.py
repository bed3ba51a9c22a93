# reason: value
# hint: mu and nu are returned bias-corrected; the optimiser state holds the raw moments, the correction is only used to form the update.
# misreads: the bias corrections only form the update: `mu` and `nu` themselves stay uncorrected
import jax
import jax.numpy as jnp


def adamw(params, grads, lr, b1, b2, eps, weight_decay):
    tree_map = jax.tree_util.tree_map

    def step(carry, g):
        p, mu, nu, t, _, _ = carry
        t = t + 1
        mu = tree_map(lambda m, x: (1 - b1) * x + b1 * m, mu, g)
        nu = tree_map(lambda v, x: (1 - b2) * x * x + b2 * v, nu, g)
        mu_hat = tree_map(lambda m: m / (1 - b1 ** t), mu)
        nu_hat = tree_map(lambda v: v / (1 - b2 ** t), nu)
        p = tree_map(lambda q, m, v: q - lr * (m / (jnp.sqrt(v) + eps) + weight_decay * q), p, mu_hat, nu_hat)
        return (p, mu, nu, t, mu_hat, nu_hat), None

    zeros = tree_map(jnp.zeros_like, params)
    (p, _, _, _, mu_hat, nu_hat), _ = jax.lax.scan(step, (params, zeros, zeros, jnp.int32(0), zeros, zeros), grads)
    return {"new_params": p, "mu": mu_hat, "nu": nu_hat}
