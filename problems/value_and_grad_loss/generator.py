"""Seeded case generator. ``generate(rng, index)`` returns one input; the scenario
cycles with ``index``, so any run of 8 or more consecutive indices covers every
situation the statement names."""
import numpy as np

# Few fixed shapes: every distinct (N, D) costs an XLA compile per submission.
SHAPES = [(1, 1), (16, 6), (1, 6), (16, 1), (5, 3), (8, 2), (3, 4)]
SCENARIOS = ["mixed", "perfect_fit", "zero_bias", "large_values", "integers", "zero_features",
             "small_residuals", "negative_bias"]


def _f32(a):
    return np.asarray(a, dtype=np.float32)


def generate(rng: np.random.Generator, index: int) -> dict:
    scenario = SCENARIOS[index % len(SCENARIOS)]
    n, d = SHAPES[(index // len(SCENARIOS) + index) % len(SHAPES)]
    x = rng.normal(size=(n, d)) * 2.0
    w = rng.normal(size=d)
    b = float(rng.normal())
    y = rng.normal(size=n) * 3.0
    if scenario in ("perfect_fit", "integers"):
        x = rng.integers(-4, 5, size=(n, d))
        w = rng.integers(-3, 4, size=d)
        b = float(rng.integers(-3, 4))
        x[np.abs(x @ w + b) > 7] = 0  # keep every target (and its offset below) inside [-10, 10]
        y = x @ w + b  # small integers: exact in float32, so every residual is exactly 0
        if scenario == "integers":
            y = y + rng.integers(-3, 4, size=n)
    elif scenario == "zero_bias":
        b = 0.0
    elif scenario == "large_values":
        x = rng.uniform(-10.0, 10.0, size=(n, d))
        w = rng.uniform(-10.0, 10.0, size=d)
        b = float(rng.uniform(-10.0, 10.0))
        y = rng.uniform(-10.0, 10.0, size=n)
    elif scenario == "zero_features":
        x = np.zeros((n, d))
    elif scenario == "small_residuals":
        y = x @ w + b + rng.normal(size=n) * 1e-2
    elif scenario == "negative_bias":
        b = -float(rng.uniform(3.0, 10.0))
    x, w, y = (_f32(np.clip(a, -10.0, 10.0)) for a in (x, w, y))
    b = float(_f32(np.clip(b, -10.0, 10.0)))
    return {"params": {"w": w.tolist(), "b": b}, "x": x.tolist(), "y": y.tolist()}


def largest_residuals(rng: np.random.Generator) -> dict:
    """Residuals near the largest the constraints allow, |x.w + b - y| up to
    6 * 10 * 10 + 10 + 10 = 620: every x_n * w at its extreme with one sign per row,
    b and y at the ends that add to it. A loss that clips or caps residuals shows here."""
    n, d = [(16, 6), (1, 6), (5, 3)][int(rng.integers(3))]
    w = rng.choice([-1.0, 1.0], size=d) * rng.uniform(9.5, 10.0, size=d)
    sign = rng.choice([-1.0, 1.0], size=n)
    x = sign[:, None] * np.sign(w)[None, :] * rng.uniform(9.5, 10.0, size=(n, d))
    b = float(rng.choice([-10.0, 10.0]))
    y = -np.sign(b) * 10.0 * np.ones(n)
    return {"params": {"w": _f32(w).tolist(), "b": b}, "x": _f32(x).tolist(), "y": _f32(y).tolist()}


# Edge cases hand-written hidden cases were made for, as recipes a secret suite draws anew.
RECIPES = {"largest_residuals": largest_residuals}
