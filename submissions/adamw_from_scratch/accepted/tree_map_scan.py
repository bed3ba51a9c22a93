# jax.tree.map over the leaves inside one lax.scan over the steps; the bias
# corrections come from the step count carried in the scan.
import jax
import jax.numpy as jnp


def adamw(params, grads, lr, b1, b2, eps, weight_decay):
    def step(state, g):
        p, mu, nu, t = state
        t = t + 1
        mu = jax.tree.map(lambda m, x: b1 * m + (1.0 - b1) * x, mu, g)
        nu = jax.tree.map(lambda v, x: b2 * v + (1.0 - b2) * jnp.square(x), nu, g)
        bc1 = 1.0 - jnp.power(b1, t)
        bc2 = 1.0 - jnp.power(b2, t)
        upd = jax.tree.map(lambda m, v: (m / bc1) / (jnp.sqrt(v / bc2) + eps), mu, nu)
        p = jax.tree.map(lambda x, u: x + (-lr) * (u + weight_decay * x), p, upd)
        return (p, mu, nu, t), None

    zeros = jax.tree.map(jnp.zeros_like, params)
    (p, mu, nu, _), _ = jax.lax.scan(step, (params, zeros, zeros, 0), grads)
    return {"new_params": p, "mu": mu, "nu": nu}
