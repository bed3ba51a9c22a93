"""Independent float64 NumPy oracles, no JAX.

Both first round the inputs to float32 (what the submission receives: the
hyper-parameters are Python floats that JAX treats as float32) and then work
in float64.
"""
import numpy as np

LEAVES = ("w", "b")


def _f64(a):
    return np.asarray(np.asarray(a, dtype=np.float32), dtype=np.float64)


def _inputs(params, grads, lr, b1, b2, eps, weight_decay):
    p = {k: _f64(params[k]) for k in LEAVES}
    g = {k: _f64(grads[k]) for k in LEAVES}
    hyper = tuple(float(np.float32(v)) for v in (lr, b1, b2, eps, weight_decay))
    return p, g, hyper


def oracle_loop(params, grads, lr, b1, b2, eps, weight_decay):
    """AdamW as optax.adamw runs it: one step at a time, one leaf and one element at a time."""
    p, g, (lr, b1, b2, eps, wd) = _inputs(params, grads, lr, b1, b2, eps, weight_decay)
    out = {"new_params": {}, "mu": {}, "nu": {}}
    for k in LEAVES:
        theta = p[k].ravel().copy()
        m = np.zeros_like(theta)
        v = np.zeros_like(theta)
        steps = g[k].reshape(g[k].shape[0], -1)
        for t in range(1, steps.shape[0] + 1):
            c1 = 1.0 - b1 ** t
            c2 = 1.0 - b2 ** t
            for i in range(theta.size):
                gi = steps[t - 1, i]
                m[i] = b1 * m[i] + (1.0 - b1) * gi
                v[i] = b2 * v[i] + (1.0 - b2) * gi * gi
                u = (m[i] / c1) / (np.sqrt(v[i] / c2) + eps)
                theta[i] = theta[i] - lr * (u + wd * theta[i])
        out["new_params"][k] = theta.reshape(p[k].shape)
        out["mu"][k] = m.reshape(p[k].shape)
        out["nu"][k] = v.reshape(p[k].shape)
    return out


def oracle_closed_form(params, grads, lr, b1, b2, eps, weight_decay):
    """Every leaf raveled into one vector; the moments after every step as weighted sums
    of the gradients, mu_t = (1 - b1) * sum_{k<=t} b1^(t-k) g_k (and nu from g^2 with b2),
    and the parameters unrolled from the linear recurrence
    p_t = (1 - lr*wd) p_{t-1} - lr u_t:  p_T = (1 - lr*wd)^T p_0 - lr sum_t (1 - lr*wd)^(T-t) u_t."""
    p, g, (lr, b1, b2, eps, wd) = _inputs(params, grads, lr, b1, b2, eps, weight_decay)
    sizes = [p[k].size for k in LEAVES]
    p0 = np.concatenate([p[k].ravel() for k in LEAVES])                     # (P,)
    T = g[LEAVES[0]].shape[0]
    G = np.concatenate([g[k].reshape(T, -1) for k in LEAVES], axis=1)       # (T, P)
    t = np.arange(1, T + 1, dtype=np.float64)[:, None]                      # step of the state
    k = np.arange(1, T + 1, dtype=np.float64)[None, :]                      # step of the gradient
    lower = k <= t
    expo = np.where(lower, t - k, 0.0)
    W1 = np.where(lower, (1.0 - b1) * np.power(b1, expo), 0.0)              # (T, T)
    W2 = np.where(lower, (1.0 - b2) * np.power(b2, expo), 0.0)
    M = W1 @ G                                                              # mu_t, (T, P)
    V = W2 @ (G * G)                                                        # nu_t
    mhat = M / (1.0 - np.power(b1, t))
    vhat = V / (1.0 - np.power(b2, t))
    U = mhat / (np.sqrt(vhat) + eps)                                        # (T, P)
    decay = 1.0 - lr * wd
    weights = np.power(decay, T - t[:, 0])                                  # decay^(T - t)
    pT = np.power(decay, T) * p0 - lr * (weights @ U)
    out = {"new_params": {}, "mu": {}, "nu": {}}
    start = 0
    for key, size in zip(LEAVES, sizes):
        shape = p[key].shape
        sl = slice(start, start + size)
        out["new_params"][key] = pT[sl].reshape(shape)
        out["mu"][key] = M[-1, sl].reshape(shape)
        out["nu"][key] = V[-1, sl].reshape(shape)
        start += size
    return out
