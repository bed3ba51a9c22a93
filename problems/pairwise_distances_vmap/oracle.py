"""Independent float64 oracles, no JAX. Inputs are first rounded to float32 (what
the submission receives)."""
import math

import numpy as np


def _rows(a, b):
    a = np.asarray(np.asarray(a, dtype=np.float32), dtype=np.float64)
    b = np.asarray(np.asarray(b, dtype=np.float32), dtype=np.float64)
    return a, b


def oracle_loop(a, b):
    """Every pair in a double loop: the square root of the summed squared differences."""
    a, b = _rows(a, b)
    out = np.zeros((a.shape[0], b.shape[0]))
    for i in range(a.shape[0]):
        for j in range(b.shape[0]):
            total = 0.0
            for k in range(a.shape[1]):
                diff = a[i, k] - b[j, k]
                total += diff * diff
            out[i, j] = math.sqrt(total)
    return {"dist": out}


def oracle_gram(a, b):
    """The expansion |u - v|^2 = |u|^2 + |v|^2 - 2 u.v, clamped at 0.

    Plain float64 is not enough here: for close rows the three terms cancel and
    leave an absolute error of about 1e-16 * |u|^2, far above the distance. But
    every term is exact in float64 (a product of two float32 values has at most
    48 significant bits), so math.fsum, which rounds their sum only once, gives
    |u - v|^2 to full float64 precision, and exactly 0 for equal rows."""
    a, b = _rows(a, b)
    out = np.zeros((a.shape[0], b.shape[0]))
    for i in range(a.shape[0]):
        for j in range(b.shape[0]):
            terms = [x * x for x in a[i]] + [y * y for y in b[j]] + [-2.0 * x * y for x, y in zip(a[i], b[j])]
            out[i, j] = math.sqrt(max(0.0, math.fsum(terms)))
    return {"dist": out}
