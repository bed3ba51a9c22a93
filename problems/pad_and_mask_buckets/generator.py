"""Seeded case generator. ``generate(rng, index) -> input``; the scenario cycles
with ``index`` so that any 11 consecutive indices cover every situation the
statement names: no valid position at all, one empty sequence, no padding,
lengths above L (clipped, and needing a larger bucket unclipped), the longest
length exactly on a bucket, extreme padding whose logits reach +-300, extreme
valid values, a single valid position, very uneven lengths, and logits of
exactly 0. Padding always holds large values with the wrong label, so that a
mask that lets any of it through is seen."""
import numpy as np

BUCKETS = (2, 4, 8)
MAX_LEN = 8
# (B, L, D): every distinct shape costs one XLA compile per submission. Seven in all,
# with the (2, 4, 1) of the public examples; every dim is > 1 in most of them.
SHAPES = [(3, 5, 2), (4, 8, 3), (1, 2, 3), (4, 1, 2), (2, 8, 1), (3, 4, 2), (2, 4, 1)]
SCENARIOS = ["mixed", "all_empty", "one_empty", "full", "overlong", "bucket_edge",
             "extreme_padding", "extreme_valid", "single_position", "uneven", "zero_logits"]


def _f32(a):
    return np.asarray(a, dtype=np.float32)


def _bucket(n):
    return next(k for k in BUCKETS if k >= n)


def _fits(scenario, shape):
    b, l, _ = shape
    if scenario in ("one_empty", "uneven") and b == 1:
        return False  # needs several sequences
    if scenario == "overlong" and _bucket(l) == BUCKETS[-1]:
        return False  # clipping to L must be able to change the bucket
    if scenario == "bucket_edge" and l < BUCKETS[0]:
        return False
    if scenario == "uneven" and l < 4:
        return False
    return True


def _shape(scenario, index):
    """The shape of the rotation, or the next one in SHAPES that suits the scenario."""
    start = (index // len(SCENARIOS) + index) % len(SHAPES)
    for k in range(len(SHAPES)):
        shape = SHAPES[(start + k) % len(SHAPES)]
        if _fits(scenario, shape):
            return shape
    raise AssertionError(scenario)


def _lengths(rng, scenario, b, l):
    if scenario == "all_empty":
        return np.zeros(b, dtype=np.int64)
    if scenario == "full":
        return np.full(b, l)
    if scenario == "overlong":
        lens = rng.integers(l + 1, MAX_LEN + 1, size=b)
        order = rng.permutation(b)
        lens[order[0]] = rng.integers(_bucket(l) + 1, MAX_LEN + 1)  # its raw length needs a larger bucket
        if b > 1:
            lens[order[1]] = rng.integers(0, l + 1)  # one that fits
        return lens
    if scenario == "bucket_edge":
        edge = max(k for k in BUCKETS if k <= l)
        lens = rng.integers(0, edge + 1, size=b)
        lens[rng.integers(0, b)] = edge
        return lens
    if scenario == "single_position":
        lens = np.zeros(b, dtype=np.int64)
        lens[rng.integers(0, b)] = 1
        return lens
    if scenario == "uneven":
        lens = rng.integers(1, 3, size=b)
        lens[rng.integers(0, b)] = l
        return lens
    lens = rng.integers(0, l + 1, size=b)
    if scenario == "one_empty":
        lens = rng.integers(1, l + 1, size=b)
        lens[rng.integers(0, b)] = 0
    return lens


def generate(rng: np.random.Generator, index: int) -> dict:
    scenario = SCENARIOS[index % len(SCENARIOS)]
    b, l, d = _shape(scenario, index)
    lengths = _lengths(rng, scenario, b, l)
    valid = np.arange(l)[None, :] < np.minimum(lengths, l)[:, None]

    w = rng.uniform(-2.0, 2.0, size=d)
    b0 = float(rng.uniform(-2.0, 2.0))
    x = rng.uniform(-3.0, 3.0, size=(b, l, d))
    targets = rng.integers(0, 2, size=(b, l)).astype(np.float64)
    if index % 3 == 0:  # soft labels now and then
        targets = rng.uniform(0.0, 1.0, size=(b, l))

    # Padding: large values, with targets that disagree with the logits there.
    x_pad = rng.choice([-10.0, 10.0], size=(b, l, d)) * rng.uniform(0.6, 1.0, size=(b, l, d))
    if scenario == "extreme_padding":
        w = rng.choice([-10.0, 10.0], size=d) * rng.uniform(0.9, 1.0, size=d)
        b0 = float(rng.choice([-10.0, 10.0]))
        x_pad = np.sign(w)[None, None, :] * 10.0 * rng.choice([-1.0, 1.0], size=(b, l, 1))
        x = x * 0.2  # valid logits stay moderate: only the padding's reach +-300
    if scenario == "extreme_valid":
        w = rng.choice([-10.0, 10.0], size=d) * rng.uniform(0.5, 1.0, size=d)
        b0 = float(rng.uniform(-10.0, 10.0))
        x = rng.choice([-10.0, 10.0], size=(b, l, d)) * rng.uniform(0.5, 1.0, size=(b, l, d))
    if scenario == "zero_logits":  # logits of exactly 0, where softplus' slope is exactly 0.5
        b0 = 0.0
        x = np.where(rng.random((b, l, 1)) < 0.5, 0.0, x)
        if index % 2:
            w = np.zeros(d)
    x = np.where(valid[:, :, None], x, x_pad)
    z_pad = x @ w + b0
    t_pad = (z_pad < 0).astype(np.float64)  # the wrong label: a leaked padding loss is large
    targets = np.where(valid, targets, t_pad)

    clip = lambda a, lo, hi: np.clip(np.round(a, 4), lo, hi)
    return {
        "params": {"w": _f32(clip(w, -10, 10)).tolist(), "b": float(np.float32(clip(b0, -10, 10)))},
        "x": _f32(clip(x, -10, 10)).tolist(),
        "targets": _f32(clip(targets, 0, 1)).tolist(),
        "lengths": [int(v) for v in lengths],
    }


def largest_bias(rng: np.random.Generator) -> dict:
    """The extreme_padding scenario with the bias at +10, the largest the constraints allow
    (the scenario draws either end; the stored cases happened to hold -10 only)."""
    index = SCENARIOS.index("extreme_padding")
    for _ in range(200):
        case = generate(rng, index + len(SCENARIOS) * int(rng.integers(len(SHAPES))))
        if case["params"]["b"] >= 9.0:
            return case
    raise RuntimeError("no extreme_padding case with the bias at +10 found")


# Edge cases hand-written hidden cases were made for, as recipes a secret suite draws anew.
RECIPES = {"largest_bias": largest_bias}
