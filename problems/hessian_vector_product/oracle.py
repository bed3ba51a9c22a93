"""Independent float64 NumPy oracles, no JAX.

closed_form:       the Hessian written out, X^T diag(s (1 - s)) X / N + lam I, times v.
finite_difference: central differences of the analytic gradient along v, one example at a time.
"""
import numpy as np


def _sigmoid(z):
    # Stable for any sign of z.
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _arrays(w, x, y, v):
    return (np.asarray(w, dtype=np.float64), np.asarray(x, dtype=np.float64),
            np.asarray(y, dtype=np.float64), np.asarray(v, dtype=np.float64))


def closed_form(w, x, y, lam, v):
    w, x, y, v = _arrays(w, x, y, v)
    n = x.shape[0]
    s = _sigmoid(x @ w)
    grad = x.T @ (s - y) / n + lam * w
    hessian = (x.T * (s * (1.0 - s))) @ x / n + lam * np.eye(w.shape[0])
    return {"grad": grad, "hvp": hessian @ v}


def _gradient_by_loop(w, x, y, lam):
    g = lam * w.copy()
    for xi, yi in zip(x, y):
        zi = float(xi @ w)
        g += (float(_sigmoid(np.array(zi))) - yi) * xi / x.shape[0]
    return g


def finite_difference(w, x, y, lam, v):
    w, x, y, v = _arrays(w, x, y, v)
    # The gradient is smooth; a central difference has error O(h^2) from the third derivative
    # and O(eps / h) from rounding. h ~ 1e-5 balances both well below 1e-8 in float64.
    h = 1e-5 / max(1.0, float(np.linalg.norm(v)))
    hvp = (_gradient_by_loop(w + h * v, x, y, lam) - _gradient_by_loop(w - h * v, x, y, lam)) / (2.0 * h)
    return {"grad": _gradient_by_loop(w, x, y, lam), "hvp": hvp}
