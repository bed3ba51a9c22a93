"""Independent float64 NumPy oracles, no JAX.

Both first round the inputs to float32 (what the submission receives) and then
work in float64. The per-position loss is binary cross-entropy with logits,

    l(z, t) = softplus(z) - t * z,    z = x[b, i] . w + b0,

averaged over the valid positions i < min(lengths[b], L) of every sequence b
(0 when there is none); the bucket is the smallest of 2, 4, 8 that is at least
the longest valid length.
"""
import numpy as np

BUCKETS = (2, 4, 8)


def _inputs(params, x, targets, lengths):
    f = lambda a: np.asarray(np.asarray(a, dtype=np.float32), dtype=np.float64)
    return (f(params["w"]), float(np.float32(params["b"])), f(x), f(targets),
            np.asarray(lengths, dtype=np.int64))


def _softplus(z):
    """log(1 + e^z) without overflow, for a real float64 number."""
    return max(z, 0.0) + np.log1p(np.exp(-abs(z)))


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z)) if z >= 0 else np.exp(z) / (1.0 + np.exp(z))


def oracle_loop(params, x, targets, lengths):
    """One position at a time; the gradient written out by hand:
    dl/dz = sigmoid(z) - t, dz/dw = x[b, i], dz/db0 = 1."""
    w, b0, x, t, lengths = _inputs(params, x, targets, lengths)
    B, L, D = x.shape
    total, count = 0.0, 0
    gw, gb = np.zeros(D), 0.0
    longest = 0
    for b in range(B):
        n = min(int(lengths[b]), L)          # positions >= L do not exist
        longest = max(longest, n)
        for i in range(n):
            z = float(np.dot(x[b, i], w)) + b0
            total += _softplus(z) - t[b, i] * z
            d = _sigmoid(z) - t[b, i]
            gw += d * x[b, i]
            gb += d
            count += 1
    scale = 1.0 / max(count, 1)               # no valid position: loss and gradient 0
    bucket = next(k for k in BUCKETS if k >= longest)
    return {"loss": total * scale, "grads": {"w": gw * scale, "b": gb * scale}, "bucket": bucket}


def _complex_softplus(z):
    """softplus for complex arguments with small imaginary parts (complex-step)."""
    pos = z.real > 0
    safe = np.where(pos, -z, z)               # real part <= 0: exp cannot overflow
    return np.where(pos, z, 0.0) + np.log1p(np.exp(safe))


def _mean_loss(w, b0, x, t, mask):
    z = x @ w + b0                            # (B, L), complex when w or b0 is
    per = _complex_softplus(z) - t * z
    per = np.where(mask, per, 0.0)            # padding never enters the sum
    return per.sum() / max(int(mask.sum()), 1)


def oracle_complex_step(params, x, targets, lengths):
    """Vectorised with a mask; the gradient by complex-step differentiation,
    d f / d p = Im f(p + i h) / h, exact to rounding for an analytic f."""
    w, b0, x, t, lengths = _inputs(params, x, targets, lengths)
    B, L, D = x.shape
    mask = np.arange(L)[None, :] < np.minimum(lengths, L)[:, None]
    loss = float(np.real(_mean_loss(w.astype(complex), complex(b0), x, t, mask)))
    h = 1e-30
    gw = np.array([np.imag(_mean_loss(w + 1j * h * np.eye(D)[d], complex(b0), x, t, mask)) / h for d in range(D)])
    gb = float(np.imag(_mean_loss(w.astype(complex), b0 + 1j * h, x, t, mask)) / h)
    longest = int(np.minimum(lengths, L).max())
    # The buckets are the powers of two 2, 4, 8: the next power of two, at least 2.
    bucket = max(2, 1 << max(longest - 1, 0).bit_length())
    return {"loss": loss, "grads": {"w": gw, "b": gb}, "bucket": bucket}


# ---------------------------------------------------------------- invariants

def padding_is_irrelevant(params, x, targets, lengths):
    """Rewriting every padding position (to zeros, and to extreme values) changes nothing."""
    w, b0, xs, ts, lens = _inputs(params, x, targets, lengths)
    B, L, D = xs.shape
    pad = ~(np.arange(L)[None, :] < np.minimum(lens, L)[:, None])
    base = oracle_loop(params, x, targets, lengths)
    for fill_x, fill_t in ((0.0, 0.0), (10.0, 0.0), (-10.0, 1.0)):
        x2 = np.where(pad[:, :, None], fill_x, xs)
        t2 = np.where(pad, fill_t, ts)
        other = oracle_complex_step(params, x2, t2, lengths)
        gap = max(abs(other["loss"] - base["loss"]), float(np.max(np.abs(other["grads"]["w"] - base["grads"]["w"]))),
                  abs(other["grads"]["b"] - base["grads"]["b"]))
        if gap > 1e-9 * (1 + abs(base["loss"])) or other["bucket"] != base["bucket"]:
            return False, f"padding filled with x={fill_x}, t={fill_t} moved the result by {gap:.3g}"
    return True, f"{int(pad.sum())} padding position(s) rewritten three ways: no change"


def bucket_is_smallest_that_fits(params, x, targets, lengths):
    """The bucket holds every (clipped) sequence, and the next smaller bucket does not."""
    L = np.asarray(x).shape[1]
    longest = int(np.minimum(np.asarray(lengths), L).max())
    k = oracle_loop(params, x, targets, lengths)["bucket"]
    smaller = [b for b in BUCKETS if b < k]
    ok = k >= longest and (not smaller or smaller[-1] < longest)
    return ok, f"longest valid length {longest}, bucket {k}"
