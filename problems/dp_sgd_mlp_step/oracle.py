"""Independent NumPy oracles for dp_sgd_mlp_step. No JAX anywhere in this file.

Two ways to get the per-example gradients, both in float64:

* ``oracle_loop``: one hand-written forward and backward pass per example, in a
  Python loop (what B separate ``loss.backward()`` calls would do).
* ``oracle_analytic``: every per-example gradient at once, as outer products of
  the back-propagated error with each layer's input (``einsum``); the first
  layer's gradient of example i is a0_i delta1_i^T (input dimension first).

Both then clip, sum, add the noise and divide by B.

The noise is *defined* as the output of ``jax.random.split`` and
``jax.random.normal(..., jnp.float32)``, so it is reproduced here bit for bit
where possible:

* the threefry2x32 block cipher (20 rounds, key schedule with 0x1BD11BDA),
  with numpy uint32 arithmetic that wraps modulo 2**32;
* ``split(key, n)`` as JAX does it with ``jax_threefry_partitionable`` on (the
  default of the installed JAX): new key j is the cipher output of the
  counter pair (0, j) under ``key``;
* 32 random bits per element: the cipher of the counter pair
  (i >> 32, i & 0xffffffff) for the flat C-order index i, the two output
  words XORed;
* bits -> float in [0, 1) by putting the top 23 bits in the mantissa of a
  float in [1, 2) and subtracting 1, then -> [-1 + 2**-24, 1) as
  f * (hi - lo) + lo (hi - lo rounds to 2.0 in float32), clamped below at lo;
* the inverse error function as XLA expands ``chlo.erf_inv`` for float32
  (Giles' single-precision polynomial in w = -log1p(-u*u)), evaluated in
  float32 arithmetic, times float32 sqrt(2).

Everything up to u is exact. The float32 erf_inv agrees with XLA's to within
3 ulp (XLA's log1p and possible FMA contraction round differently); an exact
float64 erfinv would instead differ from JAX's samples by up to ~60 ulp
(5e-6 relative) in the tails, because the float32 polynomial is itself only
that accurate there. The noise is then used in float64.
"""
import math

import numpy as np

IN_FEATURES = 20
NUM_CLASSES = 5

# ---------------------------------------------------------------- the PRNG

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def _rotl(v, d):
    return (v << np.uint32(d)) | (v >> np.uint32(32 - d))


def threefry2x32(key, c0, c1):
    """Threefry-2x32 with 20 rounds on counter arrays c0, c1 (uint32)."""
    k0, k1 = np.uint32(key[0]), np.uint32(key[1])
    ks = (k0, k1, np.uint32(k0 ^ k1 ^ np.uint32(0x1BD11BDA)))
    x0 = np.asarray(c0, dtype=np.uint32) + ks[0]
    x1 = np.asarray(c1, dtype=np.uint32) + ks[1]
    for block in range(5):
        for r in _ROTATIONS[block % 2]:
            x0 = x0 + x1
            x1 = _rotl(x1, r) ^ x0
        x0 = x0 + ks[(block + 1) % 3]
        x1 = x1 + ks[(block + 2) % 3] + np.uint32(block + 1)
    return x0, x1


def prng_split(key, num):
    """jax.random.split(key, num) for a legacy uint32[2] key: shape (num, 2)."""
    b0, b1 = threefry2x32(key, np.zeros(num, np.uint32), np.arange(num, dtype=np.uint32))
    return np.stack([b0, b1], axis=1)


def prng_bits32(key, shape):
    n = math.prod(shape)
    counter = np.arange(n, dtype=np.uint64)
    hi = (counter >> np.uint64(32)).astype(np.uint32)
    lo = (counter & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    b0, b1 = threefry2x32(key, hi, lo)
    return (b0 ^ b1).reshape(shape)


_ERFINV_W_LT_5 = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                  -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERFINV_W_GE_5 = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                  -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def erfinv_float32(u):
    """erf^-1 as XLA evaluates it for float32 inputs, in float32 arithmetic."""
    f = np.float32
    u = np.asarray(u, dtype=np.float32)
    w = -np.log1p(u * -u)
    small = w < f(5.0)
    w = np.where(small, w - f(2.5), np.sqrt(w) - f(3.0)).astype(np.float32)
    p = np.where(small, f(_ERFINV_W_LT_5[0]), f(_ERFINV_W_GE_5[0])).astype(np.float32)
    for a, b in zip(_ERFINV_W_LT_5[1:], _ERFINV_W_GE_5[1:]):
        p = (np.where(small, f(a), f(b)) + p * w).astype(np.float32)
    return (p * u).astype(np.float32)


def prng_normal_float32(key, shape):
    """jax.random.normal(key, shape, jnp.float32), as float32."""
    bits = prng_bits32(key, shape)
    one_two = ((bits >> np.uint32(9)) | np.uint32(0x3F800000)).view(np.float32)
    f = one_two - np.float32(1.0)
    lo = np.nextafter(np.float32(-1.0), np.float32(0.0))
    u = np.maximum(lo, f * np.float32(2.0) + lo)  # float32: 1 - lo == 2.0
    return np.float32(math.sqrt(2.0)) * erfinv_float32(u)


def noise_tree(key, hidden, noise_multiplier, clip_norm):
    """The noise of every leaf, float64, keyed by (layer, name)."""
    key = np.asarray(key, dtype=np.uint32)
    keys = prng_split(key, 4)
    shapes = [(("layer1", "b"), (hidden,)), (("layer1", "w"), (IN_FEATURES, hidden)),
              (("layer2", "b"), (NUM_CLASSES,)), (("layer2", "w"), (hidden, NUM_CLASSES))]
    std = float(noise_multiplier) * float(clip_norm)
    return {path: std * prng_normal_float32(keys[i], shape).astype(np.float64)
            for i, (path, shape) in enumerate(shapes)}


# ---------------------------------------------------------------- the model

def _arrays(params, x, y):
    w1 = np.asarray(params["layer1"]["w"], dtype=np.float64).reshape(IN_FEATURES, -1)
    b1 = np.asarray(params["layer1"]["b"], dtype=np.float64).reshape(-1)
    w2 = np.asarray(params["layer2"]["w"], dtype=np.float64).reshape(-1, NUM_CLASSES)
    b2 = np.asarray(params["layer2"]["b"], dtype=np.float64).reshape(NUM_CLASSES)
    x = np.asarray(x, dtype=np.float64).reshape(-1, IN_FEATURES)
    y = np.asarray(y, dtype=np.int64).reshape(-1)
    return w1, b1, w2, b2, x, y


def _softmax_rows(logits):
    shifted = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def _finish(per_example, norms, clip_norm, noise_multiplier, key, hidden):
    """per_example: {(layer, name): (B, ...) float64}. Clip, sum, add noise, divide."""
    batch = norms.shape[0]
    factor = np.maximum(1.0, norms / float(clip_norm))
    noise = noise_tree(key, hidden, noise_multiplier, clip_norm)
    update = {"layer1": {}, "layer2": {}}
    for (layer, name), g in per_example.items():
        clipped = g / factor.reshape((batch,) + (1,) * (g.ndim - 1))
        update[layer][name] = (clipped.sum(axis=0) + noise[(layer, name)]) / batch
    return {"update": update, "norms": norms,
            "clipped_fraction": float(np.mean(norms > float(clip_norm)))}


# ------------------------------------------------------------ oracle 1: loop

def per_example_gradients_loop(params, x, y):
    """One hand-written forward and backward pass per example, in a Python loop.

    Returns ({(layer, name): (B, ...)}, norms), unclipped, float64."""
    w1, b1, w2, b2, x, y = _arrays(params, x, y)
    batch, hidden = x.shape[0], b1.shape[0]
    per = {("layer1", "b"): np.zeros((batch, hidden)), ("layer1", "w"): np.zeros((batch, IN_FEATURES, hidden)),
           ("layer2", "b"): np.zeros((batch, NUM_CLASSES)), ("layer2", "w"): np.zeros((batch, hidden, NUM_CLASSES))}
    norms = np.zeros(batch)
    for i in range(batch):
        # forward pass of example i
        a0 = x[i]
        z1 = a0 @ w1 + b1
        a1 = np.where(z1 > 0.0, z1, 0.0)
        z2 = a1 @ w2 + b2
        e = np.exp(z2 - z2.max())
        p = e / e.sum()
        # backward pass: d loss / d z2 = softmax - onehot
        dz2 = p.copy()
        dz2[y[i]] -= 1.0
        g_w2 = np.zeros((hidden, NUM_CLASSES))
        for j in range(hidden):
            g_w2[j] = a1[j] * dz2
        g_b2 = dz2
        da1 = w2 @ dz2
        dz1 = np.where(z1 > 0.0, da1, 0.0)  # the ReLU passes the error only where it was active
        g_w1 = np.zeros((IN_FEATURES, hidden))
        for k in range(IN_FEATURES):
            g_w1[k] = a0[k] * dz1
        g_b1 = dz1
        per[("layer1", "b")][i] = g_b1
        per[("layer1", "w")][i] = g_w1
        per[("layer2", "b")][i] = g_b2
        per[("layer2", "w")][i] = g_w2
        total = 0.0
        for g in (g_b1, g_w1, g_b2, g_w2):
            total += float(np.sum(g * g))
        norms[i] = math.sqrt(total)
    return per, norms


def oracle_loop(params, x, y, clip_norm, noise_multiplier, key):
    per, norms = per_example_gradients_loop(params, x, y)
    hidden = per[("layer1", "b")].shape[1]
    return _finish(per, norms, clip_norm, noise_multiplier, key, hidden)


# ------------------------------------------------- oracle 2: outer products

def per_example_gradients_outer(params, x, y):
    """All per-example gradients at once from outer products; returns (per, norms) like the loop."""
    w1, b1, w2, b2, a0, y = _arrays(params, x, y)
    z1 = a0 @ w1 + b1                       # (B, H)
    a1 = np.maximum(z1, 0.0)
    z2 = a1 @ w2 + b2                       # (B, 5)
    delta2 = _softmax_rows(z2) - np.eye(NUM_CLASSES)[y]   # d loss_i / d z2_i, no 1/B
    delta1 = (delta2 @ w2.T) * (z1 > 0.0)   # (B, H)
    per = {
        ("layer1", "b"): delta1,
        ("layer1", "w"): np.einsum("bi,bh->bih", a0, delta1),   # a0_i delta1_i^T
        ("layer2", "b"): delta2,
        ("layer2", "w"): np.einsum("bh,bc->bhc", a1, delta2),   # a1_i delta2_i^T
    }
    # ||a b^T||_F = ||a|| ||b||, so the norms need no per-example matrices at all.
    sq = ((a0 * a0).sum(1) + 1.0) * (delta1 * delta1).sum(1) + ((a1 * a1).sum(1) + 1.0) * (delta2 * delta2).sum(1)
    return per, np.sqrt(sq)


def oracle_analytic(params, x, y, clip_norm, noise_multiplier, key):
    per, norms = per_example_gradients_outer(params, x, y)
    hidden = per[("layer1", "b")].shape[1]
    return _finish(per, norms, clip_norm, noise_multiplier, key, hidden)


# ---------------------------------------------- helper for the validators

def batch_mean_gradient(params, x, y):
    """Gradient of the MEAN cross-entropy over the batch, written by hand in float64.

    The mean over examples of the per-example gradients (before clipping) must equal this.
    """
    w1, b1, w2, b2, x, y = _arrays(params, x, y)
    batch = x.shape[0]
    z1 = x @ w1 + b1
    a1 = np.maximum(z1, 0.0)
    dz2 = (_softmax_rows(a1 @ w2 + b2) - np.eye(NUM_CLASSES)[y]) / batch
    dz1 = (dz2 @ w2.T) * (z1 > 0.0)
    return {"layer1": {"w": x.T @ dz1, "b": dz1.sum(0)}, "layer2": {"w": a1.T @ dz2, "b": dz2.sum(0)}}


def _rel_gap(a, b):
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


# Invariants ([oracles] invariants in problem.toml): called with the entry's arguments,
# they return (ok, message).

def mean_of_per_example_is_batch_gradient(params, x, y, clip_norm, noise_multiplier, key):
    """The lab's check: averaging the unclipped per-example gradients gives the batch gradient."""
    per, _ = per_example_gradients_loop(params, x, y)
    batch = batch_mean_gradient(params, x, y)
    worst = max(_rel_gap(g.mean(axis=0), batch[layer][name]) for (layer, name), g in per.items())
    return worst < 1e-12, f"mean of per-example gradients vs batch gradient: relative gap {worst:.2g}"


def loop_and_outer_products_agree(params, x, y, clip_norm, noise_multiplier, key):
    """The lab's other check: B backward passes and the outer-product formulas give the same gradients."""
    per_a, norms_a = per_example_gradients_loop(params, x, y)
    per_b, norms_b = per_example_gradients_outer(params, x, y)
    worst = max(_rel_gap(per_a[k], per_b[k]) for k in per_a)
    worst = max(worst, _rel_gap(norms_a, norms_b))
    return worst < 1e-12, f"loop vs outer-product per-example gradients: relative gap {worst:.2g}"


def clipped_lengths_within_bound(params, x, y, clip_norm, noise_multiplier, key):
    """After clipping every example's gradient is at most C long, and norms <= C are untouched."""
    per, norms = per_example_gradients_outer(params, x, y)
    factor = np.maximum(1.0, norms / float(clip_norm))
    clipped = np.sqrt(sum(np.sum((g / factor.reshape((-1,) + (1,) * (g.ndim - 1))) ** 2,
                                 axis=tuple(range(1, g.ndim))) for g in per.values()))
    ok = bool(np.all(clipped <= float(clip_norm) * (1 + 1e-12))
              and np.allclose(clipped[norms <= clip_norm], norms[norms <= clip_norm], rtol=1e-12, atol=0))
    return ok, f"largest clipped length {clipped.max():.6g} for C = {float(clip_norm):.6g}"
