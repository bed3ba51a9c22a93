"""Independent float64 NumPy oracle, no JAX: the loss and its gradient written out
by hand, accumulated one example at a time."""
import numpy as np


def oracle(params, x, y):
    w = np.asarray(params["w"], dtype=np.float64)
    b = float(params["b"])
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = x.shape[0]
    loss, gw, gb = 0.0, np.zeros_like(w), 0.0
    for xi, yi in zip(x, y):
        r = float(np.dot(xi, w)) + b - float(yi)
        loss += 0.5 * r * r / n
        gw += r * xi / n
        gb += r / n
    return {"loss": loss, "grads": {"w": gw, "b": gb}}
