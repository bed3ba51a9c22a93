# reason: value
# hint: weight_decay * params is added to the gradient before the moments (Adam with L2); AdamW adds it to the update, after the moments.
# misreads: Unlike "Adam with L2 regularisation", its weight decay is **decoupled**: it is added to the finished update, not mixed into the gradients.
import jax
import jax.numpy as jnp


def adamw(params, grads, lr, b1, b2, eps, weight_decay):
    tree_map = jax.tree_util.tree_map

    def step(carry, g):
        p, mu, nu, t = carry
        t = t + 1
        g = tree_map(lambda x, q: x + weight_decay * q, g, p)
        mu = tree_map(lambda m, x: (1 - b1) * x + b1 * m, mu, g)
        nu = tree_map(lambda v, x: (1 - b2) * x * x + b2 * v, nu, g)
        c1, c2 = 1 - b1 ** t, 1 - b2 ** t
        p = tree_map(lambda q, m, v: q - lr * (m / c1) / (jnp.sqrt(v / c2) + eps), p, mu, nu)
        return (p, mu, nu, t), None

    zeros = tree_map(jnp.zeros_like, params)
    (p, mu, nu, _), _ = jax.lax.scan(step, (params, zeros, zeros, jnp.int32(0)), grads)
    return {"new_params": p, "mu": mu, "nu": nu}
