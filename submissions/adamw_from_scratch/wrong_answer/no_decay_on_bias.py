# reason: value
# hint: weight decay is applied to w only (a common mask in practice); here every leaf, the bias b included, is decayed.
# misreads: every leaf is decayed, `b` included
import jax
import jax.numpy as jnp


def adamw(params, grads, lr, b1, b2, eps, weight_decay):
    tree_map = jax.tree_util.tree_map
    wd = {"w": weight_decay, "b": 0.0}

    def step(carry, g):
        p, mu, nu, t = carry
        t = t + 1
        mu = tree_map(lambda m, x: (1 - b1) * x + b1 * m, mu, g)
        nu = tree_map(lambda v, x: (1 - b2) * x * x + b2 * v, nu, g)
        c1, c2 = 1 - b1 ** t, 1 - b2 ** t
        p = {k: p[k] - lr * ((mu[k] / c1) / (jnp.sqrt(nu[k] / c2) + eps) + wd[k] * p[k]) for k in p}
        return (p, mu, nu, t), None

    zeros = tree_map(jnp.zeros_like, params)
    (p, mu, nu, _), _ = jax.lax.scan(step, (params, zeros, zeros, jnp.int32(0)), grads)
    return {"new_params": p, "mu": mu, "nu": nu}
