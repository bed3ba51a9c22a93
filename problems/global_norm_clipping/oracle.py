"""Independent float64 NumPy oracle, no JAX: every entry of every leaf squared and
summed one at a time, then the scale written as the "shrink only" rule min(1, C / norm)."""
import math

import numpy as np

LEAVES = (("dense", "w"), ("dense", "b"), ("out", "w"), ("out", "b"))


def oracle(grads, max_norm):
    arrays = {path: np.asarray(grads[path[0]][path[1]], dtype=np.float64) for path in LEAVES}
    total = 0.0
    for arr in arrays.values():
        for v in arr.ravel():
            total += float(v) * float(v)
    norm = math.sqrt(total)
    factor = 1.0 if norm <= max_norm else max_norm / norm
    clipped: dict = {"dense": {}, "out": {}}
    for (group, name), arr in arrays.items():
        clipped[group][name] = arr * factor
    return {"clipped": clipped, "global_norm": norm}
