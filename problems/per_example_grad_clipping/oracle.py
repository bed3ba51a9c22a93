"""Independent float64 NumPy oracle: the gradient written out by hand, no JAX."""
import numpy as np


def oracle(params, x, y, max_norm):
    w = np.asarray(params["w"], dtype=np.float64)
    b = float(params["b"])
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = x.shape[0]
    gw = np.zeros_like(x)
    gb = np.zeros(n)
    norms = np.zeros(n)
    for i in range(n):
        err = float(x[i] @ w) + b - y[i]
        gw[i] = err * x[i]
        gb[i] = err
        norms[i] = np.sqrt(np.sum(gw[i] ** 2) + gb[i] ** 2)
        factor = max(1.0, norms[i] / max_norm)
        gw[i] /= factor
        gb[i] /= factor
    return {"grads": {"w": gw.mean(axis=0), "b": gb.mean()}, "norms": norms}
