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


def oracle_closed_form(params, x, y, max_norm):
    """The same answer without a loop or a per-example gradient array: example n's gradient
    is err_n * [x_n, 1], so its norm is |err_n| * sqrt(|x_n|^2 + 1), and the mean of the
    clipped gradients is a weighted sum of the rows [x_n, 1]."""
    w = np.asarray(params["w"], dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    err = x @ w + float(params["b"]) - np.asarray(y, dtype=np.float64)
    norms = np.abs(err) * np.sqrt(np.einsum("nd,nd->n", x, x) + 1.0)
    # min(1, C / norm) without dividing by a zero norm (a zero gradient stays zero)
    keep = np.where(norms > max_norm, max_norm / np.where(norms > 0, norms, 1.0), 1.0)
    weights = err * keep / x.shape[0]
    return {"grads": {"w": weights @ x, "b": weights.sum()}, "norms": norms}
