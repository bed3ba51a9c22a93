# reason: requirement
# The scan carries only the parameters; the moments of every step are computed
# beforehand with cumulative sums (mu_t = b1^t (1 - b1) sum_{k<=t} b1^-k g_k) and fed to
# the scan as inputs, so the returned mu and nu never come from the scan.
import jax
import jax.numpy as jnp


def moments(g, b):
    T = g.shape[0]
    t = jnp.arange(1, T + 1, dtype=jnp.float32).reshape((T,) + (1,) * (g.ndim - 1))
    k = jnp.arange(1, T + 1, dtype=jnp.float32)
    # sum_{k<=t} b^(t-k) g_k by a lower-triangular matrix product (no division by b^k)
    weights = jnp.where(k[None, :] <= k[:, None], (1 - b) * b ** jnp.maximum(k[:, None] - k[None, :], 0), 0.0)
    return jnp.tensordot(weights, g, axes=1), t


def adamw(params, grads, lr, b1, b2, eps, weight_decay):
    tree_map = jax.tree_util.tree_map
    mus = tree_map(lambda g: moments(g, b1)[0], grads)
    nus = tree_map(lambda g: moments(g * g, b2)[0], grads)
    ts = jnp.arange(1, grads["w"].shape[0] + 1, dtype=jnp.float32)

    def step(p, xs):
        m, v, t = xs
        p = tree_map(lambda q, mi, vi: q - lr * ((mi / (1 - b1 ** t)) / (jnp.sqrt(vi / (1 - b2 ** t)) + eps)
                                               + weight_decay * q), p, m, v)
        return p, None

    p, _ = jax.lax.scan(step, params, (mus, nus, ts))
    return {"new_params": p, "mu": tree_map(lambda x: x[-1], mus), "nu": tree_map(lambda x: x[-1], nus)}
