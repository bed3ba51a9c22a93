"""Plain data as strict JSON allows it: non-finite floats become the strings JSON
readers know ("NaN", "Infinity", "-Infinity"), complex numbers [real, imag]."""
from __future__ import annotations

import math
from typing import Any


def json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, complex):
        return [json_safe(value.real), json_safe(value.imag)]
    return value
