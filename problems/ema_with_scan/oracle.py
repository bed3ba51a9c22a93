"""Independent float64 NumPy oracles, no JAX.

Both first round the inputs to float32 (what the submission receives: the
decay is a Python float that JAX treats as float32) and then work in float64.
"""
import numpy as np


def _inputs(xs, decay, init):
    xs = np.asarray(np.asarray(xs, dtype=np.float32), dtype=np.float64)
    init = np.asarray(np.asarray(init, dtype=np.float32), dtype=np.float64)
    return xs, float(np.float32(decay)), init


def oracle_loop(xs, decay, init):
    """The recurrence, one time step at a time."""
    xs, d, s = _inputs(xs, decay, init)
    trace = np.zeros_like(xs)
    for t in range(xs.shape[0]):
        s = d * s + (1.0 - d) * xs[t]
        trace[t] = s
    return {"final": s.copy(), "trace": trace}


def oracle_closed_form(xs, decay, init):
    """The unrolled sum: s_t = d^t * init + sum_{k<=t} (1 - d) * d^(t-k) * x_k (1-based t, k)."""
    xs, d, init = _inputs(xs, decay, init)
    T = xs.shape[0]
    t = np.arange(1, T + 1)[:, None]          # time of the state, 1..T
    k = np.arange(1, T + 1)[None, :]          # time of the input, 1..T
    expo = np.where(k <= t, t - k, 0)
    weights = np.where(k <= t, (1.0 - d) * np.power(d, expo), 0.0)   # (T, T), lower triangular
    trace = weights @ xs + np.power(d, t) * init[None, :]
    return {"final": trace[-1].copy(), "trace": trace}
