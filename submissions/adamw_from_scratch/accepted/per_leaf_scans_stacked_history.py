# One scan per leaf (each leaf's AdamW is independent of the others); the scan
# returns the whole history of parameters and moments, and the last row is kept.
import jax
import jax.numpy as jnp


def adam_leaf(p0, gs, lr, b1, b2, eps, wd):
    def step(carry, xs):
        p, m, v = carry
        g, t = xs
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * g ** 2 + b2 * v
        m_hat = m / (1 - b1 ** t)
        v_hat = v / (1 - b2 ** t)
        p = p - lr * (m_hat / (jnp.sqrt(v_hat) + eps) + wd * p)
        return (p, m, v), (p, m, v)

    ts = jnp.arange(1, gs.shape[0] + 1, dtype=jnp.float32)
    zero = jnp.zeros_like(p0)
    _, (ps, ms, vs) = jax.lax.scan(step, (p0, zero, zero), (gs, ts))
    return ps[-1], ms[-1], vs[-1]


def adamw(params, grads, lr, b1, b2, eps, weight_decay):
    out = {"new_params": {}, "mu": {}, "nu": {}}
    for name in params:
        p, m, v = adam_leaf(params[name], grads[name], lr, b1, b2, eps, weight_decay)
        out["new_params"][name] = p
        out["mu"][name] = m
        out["nu"][name] = v
    return out
