# reason: requirement
# attack: the T steps unrolled in a Python loop, padded so that the program is largest at the smallest T measured; stopped by requiring the programs at every size to be alike
import jax
import jax.numpy as jnp

T_MAX = 6


def adamw(params, grads, lr, b1, b2, eps, weight_decay):
    tm = jax.tree_util.tree_map
    p, mu, nu = params, tm(jnp.zeros_like, params), tm(jnp.zeros_like, params)
    T = grads["w"].shape[0]
    for t in range(1, T + 1):
        g = tm(lambda a: a[t - 1], grads)
        mu = tm(lambda m, gi: (1 - b1) * gi + b1 * m, mu, g)
        nu = tm(lambda v, gi: (1 - b2) * gi * gi + b2 * v, nu, g)
        c1, c2 = 1 - b1 ** t, 1 - b2 ** t
        p = tm(lambda pi, m, v: pi - lr * ((m / c1) / (jnp.sqrt(v / c2) + eps) + weight_decay * pi), p, mu, nu)
    z = jnp.zeros(())
    for _ in range(200 * (T_MAX - T)):
        z = z * 0.5
    (p, mu, nu), _ = jax.lax.scan(lambda c, _: (c, None), (p, mu, nu), None, length=1)
    p = tm(lambda a: a + z, p)
    return {"new_params": p, "mu": mu, "nu": nu}
