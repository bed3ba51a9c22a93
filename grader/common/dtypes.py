"""Dtype names as problems and the wire spell them, to NumPy dtypes."""
from __future__ import annotations

import numpy as np


def numpy_dtype(name: str) -> np.dtype:
    """``bfloat16`` comes from ml_dtypes (JAX's own dependency); the rest from NumPy."""
    if name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)
