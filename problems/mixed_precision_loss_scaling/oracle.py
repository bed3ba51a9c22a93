"""Float64 NumPy oracles for one mixed-precision step, no JAX.

They mimic the float16 program value by value: every intermediate the statement
computes in float16 is rounded to float16 (np.float16) after being computed in
float64. Two details follow what XLA does with float16 on the CPU: a matrix
product accumulates in higher precision and is rounded once, while a sum of a
float16 vector (the bias gradient, the transpose of the broadcast of b)
accumulates in float16, element by element in index order. The tolerances cover
other legitimate orders too; the stored cases avoid the inputs where the order
could matter more than a few float16 ulps (see ``well_conditioned``).
"""
import math

import numpy as np

F16_MAX = 65504.0


def _h(a):
    """Round to float16, keep working in float64."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(a, dtype=np.float64).astype(np.float16).astype(np.float64)


def _inputs(params, x, y):
    # The submission receives float32 arrays and casts them to float16.
    f32 = lambda a: np.asarray(a, dtype=np.float32).astype(np.float64)
    return _h(f32(params["w"])), _h(f32(params["b"])), _h(f32(x)), _h(f32(y))


def _finish(gw16, gb16, loss, scale):
    finite = bool(np.all(np.isfinite(gw16)) and np.isfinite(gb16))
    if finite:
        # Unscale in float32: one float32 division of the float16 value.
        s = np.float32(scale)
        gw = (gw16.astype(np.float32) / s).astype(np.float64)
        gb = float(np.float32(gb16) / s)
    else:
        gw, gb = np.zeros_like(gw16), 0.0
    return {"grads": {"w": gw, "b": gb}, "loss": float(loss), "finite": finite}


def oracle(params, x, y, loss_scale):
    """Vectorised NumPy, backward pass written out by hand."""
    w, b, x, y = _inputs(params, x, y)
    n = x.shape[0]
    with np.errstate(over="ignore", invalid="ignore"):
        pred = _h(_h(x @ w) + b)
        r = _h(pred - y)
        loss = _h(np.mean(_h(r * r)))                      # float16 squares, mean rounded once
        ct = _h(np.float32(np.float32(loss_scale) / np.float32(n)))   # d(S * mean)/d(square)
        ct_r = _h(ct * _h(2.0 * r))                        # d/dr of the scaled loss, float16
        gw16 = _h(x.T @ ct_r)
        gb16 = np.float64(0.0)
        for v in ct_r:                                     # float16 accumulation
            gb16 = _h(gb16 + v)
    return _finish(gw16, gb16, loss, loss_scale)


def oracle_loop(params, x, y, loss_scale):
    """The same float16 program, one scalar at a time with exactly rounded sums."""
    w, b, x, y = _inputs(params, x, y)
    n, d = x.shape
    h = lambda v: float(_h(v))
    with np.errstate(over="ignore", invalid="ignore"):
        r = []
        for i in range(n):
            pred = h(h(math.fsum(float(x[i, j]) * float(w[j]) for j in range(d))) + float(b))
            r.append(h(pred - float(y[i])))
        loss = h(math.fsum(h(v * v) for v in r) / n)
        ct = h(float(loss_scale) / n)
        ct_r = [h(ct * h(2.0 * v)) for v in r]
        gw16 = np.array([h(math.fsum(float(x[i, j]) * ct_r[i] for i in range(n)))
                         if all(math.isfinite(v) for v in ct_r) else
                         h(sum(float(x[i, j]) * ct_r[i] for i in range(n))) for j in range(d)])
        gb16 = 0.0
        for v in ct_r:
            gb16 = h(gb16 + v)
    return _finish(gw16, gb16, loss, loss_scale)


# ------------------------------------------------------------------ invariants

def _exact(params, x, y, loss_scale):
    """Float64 values of the float16-cast inputs, no rounding inside."""
    w, b, x, y = _inputs(params, x, y)
    terms = x * w
    pred = terms.sum(axis=1) + b
    r = pred - y
    n = x.shape[0]
    ct_r = loss_scale * 2.0 * r / n
    return w, b, x, y, terms, pred, r, ct_r


def power_of_two_scale(params, x, y, loss_scale):
    m, e = math.frexp(loss_scale)
    ok = m == 0.5 and 1 <= loss_scale <= 32768
    return ok, "loss_scale is a power of two in [1, 32768]" if ok else f"loss_scale {loss_scale} is not 2**k, 0 <= k <= 15"


def well_conditioned(params, x, y, loss_scale, limit=4.0):
    """No sum loses more than a factor `limit` to cancellation, so a few float16 ulps of
    difference between legitimate evaluation orders stay a few ulps in the result."""
    w, b, x, y, terms, pred, r, ct_r = _exact(params, x, y, loss_scale)

    def amp(parts, total):
        size = float(np.sum(np.abs(parts)))
        return 1.0 if size == 0.0 else (math.inf if total == 0.0 else size / abs(total))

    for i in range(x.shape[0]):
        if amp(np.append(terms[i], b), pred[i]) > limit:
            return False, f"x[{i}] @ w + b cancels"
        if amp(np.array([pred[i], y[i]]), r[i]) > limit:
            return False, f"pred[{i}] - y[{i}] cancels"
    for j in range(x.shape[1]):
        if amp(r * x[:, j], float(r @ x[:, j])) > limit:
            return False, f"the gradient of w[{j}] cancels"
    if amp(r, float(r.sum())) > limit:
        return False, "the gradient of b cancels"
    return True, "well conditioned"


def clear_overflow(params, x, y, loss_scale):
    """Either no float16 value of the backward pass comes within a factor 4 of the float16
    maximum (whatever the order of operations), or some scaled gradient is at least twice
    the maximum; the scaled loss, likewise, stays a factor 4 below it or overflows by a
    factor 2 or more (then alone, with finite gradients, when nothing else overflows). Residuals and their squares are normal float16 numbers (or zero), and so is
    every scaled gradient value when nothing overflows."""
    w, b, x, y, terms, pred, r, ct_r = _exact(params, x, y, loss_scale)
    normal = 2.0 ** -14
    small = [v for v in np.concatenate([r, r * r]) if v != 0.0 and abs(v) < normal]
    if small:
        return False, f"a residual or its square ({small[0]:.3g}) is a float16 subnormal"
    gw = x.T @ ct_r
    gb = ct_r.sum()
    biggest = max(float(np.max(np.abs(gw))), abs(float(gb)))
    if biggest >= 2 * F16_MAX:
        return True, "overflows clearly"
    # S itself (<= 32768) is exact in float16; what it multiplies must keep the products small.
    bound = loss_scale * 2.0 * float(np.max(np.abs(r))) * max(1.0, float(np.max(np.abs(x))))
    if bound > F16_MAX / 4:
        return False, f"a float16 value of the backward pass may reach {bound:g}: too close to overflow"
    # The scaled loss is no value of the backward pass (the product's derivative does not use
    # it), so it may overflow, but clearly: a factor 4 below the maximum, or twice above it.
    scaled = loss_scale * float(np.mean(r * r))
    if F16_MAX / 4 < scaled < 2 * F16_MAX:
        return False, f"the scaled loss ({scaled:g}) is too close to the float16 maximum"
    small = [v for v in np.concatenate([gw, [gb], ct_r]) if v != 0.0 and abs(v) < 4 * normal]
    if small:
        return False, f"a scaled gradient value ({small[0]:.3g}) is close to the float16 subnormal range"
    return True, "no overflow anywhere"
