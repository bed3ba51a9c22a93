# reason: requirement
# Runs a scan and throws its result away; the answer comes from a closed form: the
# moments after every step as a lower-triangular weighting of the gradients
# (mu_t = (1 - b1) sum_{k<=t} b1^(t-k) g_k), and the parameters unrolled from
# p_t = (1 - lr*wd) p_{t-1} - lr u_t.
import jax
import jax.numpy as jnp


def closed_form(p0, g, lr, b1, b2, eps, wd):
    T = g.shape[0]
    flat = g.reshape(T, -1)
    t = jnp.arange(1, T + 1, dtype=jnp.float32)[:, None]
    k = jnp.arange(1, T + 1, dtype=jnp.float32)[None, :]
    lower = k <= t
    expo = jnp.where(lower, t - k, 0.0)
    w1 = jnp.where(lower, (1 - b1) * b1 ** expo, 0.0)
    w2 = jnp.where(lower, (1 - b2) * b2 ** expo, 0.0)
    m = w1 @ flat
    v = w2 @ (flat * flat)
    u = (m / (1 - b1 ** t)) / (jnp.sqrt(v / (1 - b2 ** t)) + eps)
    decay = 1 - lr * wd
    weights = decay ** (T - t[:, 0])
    p = decay ** T * p0.reshape(-1) - lr * (weights @ u)
    shape = p0.shape
    return p.reshape(shape), m[-1].reshape(shape), v[-1].reshape(shape)


def adamw(params, grads, lr, b1, b2, eps, weight_decay):
    jax.lax.scan(lambda c, g: (c, None), params, grads)
    out = {"new_params": {}, "mu": {}, "nu": {}}
    for name in params:
        p, m, v = closed_form(params[name], grads[name], lr, b1, b2, eps, weight_decay)
        out["new_params"][name], out["mu"][name], out["nu"][name] = p, m, v
    return out
