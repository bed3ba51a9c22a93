# reason: value
# hint: the moments are used without bias correction: divide mu by 1 - b1^t and nu by 1 - b2^t before forming the update.
# misreads: It keeps two running averages per parameter, of the gradients (`mu`) and of their squares (`nu`), corrects both for starting at zero, and scales every parameter's step by $\mu / \sqrt{\nu}$.
import jax
import jax.numpy as jnp


def adamw(params, grads, lr, b1, b2, eps, weight_decay):
    tree_map = jax.tree_util.tree_map

    def step(carry, g):
        p, mu, nu = carry
        mu = tree_map(lambda m, x: (1 - b1) * x + b1 * m, mu, g)
        nu = tree_map(lambda v, x: (1 - b2) * x * x + b2 * v, nu, g)
        p = tree_map(lambda q, m, v: q - lr * (m / (jnp.sqrt(v) + eps) + weight_decay * q), p, mu, nu)
        return (p, mu, nu), None

    zeros = tree_map(jnp.zeros_like, params)
    (p, mu, nu), _ = jax.lax.scan(step, (params, zeros, zeros), grads)
    return {"new_params": p, "mu": mu, "nu": nu}
