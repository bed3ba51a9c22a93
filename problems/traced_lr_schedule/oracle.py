"""Independent float64 NumPy oracles, no JAX.

Both first round peak_lr and final_fraction to float32 (what the submission
receives: a Python float that JAX treats as float32; the integer arguments are
exact) and then work in float64.
"""
import math

import numpy as np


def _inputs(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    s = np.asarray(steps, dtype=np.int64)
    return (s, float(np.float32(peak_lr)), int(warmup_steps), int(decay_steps),
            float(np.float32(final_fraction)))


def oracle_piecewise(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    """The definition, one step at a time with Python branches."""
    s, peak, w, d, frac = _inputs(steps, peak_lr, warmup_steps, decay_steps, final_fraction)
    final = frac * peak
    out = np.zeros(s.shape, dtype=np.float64)
    for i, step in enumerate(s.tolist()):
        if step < w:
            out[i] = peak * step / w
        elif step < w + d:
            out[i] = final + (peak - final) * 0.5 * (1.0 + math.cos(math.pi * (step - w) / d))
        else:
            out[i] = final
    return {"lr": out}


def oracle_interp(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    """Vectorised, as a multiplier of peak_lr: the warmup as np.interp between (0, 0)
    and (w, 1); the decay as frac + (1 - frac) * cos^2(pi/2 * progress) (the same half
    cosine, by (1 + cos 2x) / 2 = cos^2 x), the progress clipped to [0, 1]."""
    s, peak, w, d, frac = _inputs(steps, peak_lr, warmup_steps, decay_steps, final_fraction)
    s = s.astype(np.float64)
    ramp = np.interp(s, [0.0, float(w)], [0.0, 1.0]) if w > 0 else np.ones(s.shape)
    progress = np.clip((s - w) / d, 0.0, 1.0)
    decay = frac + (1.0 - frac) * np.cos(0.5 * np.pi * progress) ** 2
    return {"lr": peak * np.where(s < w, ramp, decay)}


def schedule_shape(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    """The boundaries the statement names, checked on oracle_piecewise with this case's
    parameters: lr(0) = 0 (P without warmup), lr(W) = P, lr(W + D) = lr(W + D + 1) = F,
    the warmup below P and rising, the decay between F and P and not rising; and the
    case's own steps obey the same bounds."""
    _, peak, w, d, frac = _inputs(steps, peak_lr, warmup_steps, decay_steps, final_fraction)
    final = frac * peak
    probe = [0, max(w - 1, 0), w, w + d // 2, w + d - 1, w + d, w + d + 1, w + 3 * d + 7]
    lr = oracle_piecewise(probe, peak_lr, warmup_steps, decay_steps, final_fraction)["lr"]
    close = lambda a, b: abs(a - b) <= 1e-12 * max(1.0, abs(b))  # noqa: E731
    checks = [
        ("lr(0)", close(lr[0], 0.0 if w > 0 else peak)),
        ("lr(W)", close(lr[2], peak)),
        ("lr(W + D)", close(lr[5], final) and close(lr[6], final) and close(lr[7], final)),
        ("warmup below the peak", w == 0 or lr[1] < peak or peak == 0.0),
        ("decay within [F, P] and not rising", final - 1e-12 <= lr[4] <= lr[3] <= lr[2] + 1e-12),
    ]
    own = oracle_piecewise(steps, peak_lr, warmup_steps, decay_steps, final_fraction)["lr"]
    checks.append(("every rate within [0, P]", bool(np.all((own >= 0.0) & (own <= peak + 1e-12)))))
    bad = [name for name, ok in checks if not ok]
    return not bad, "boundaries hold" if not bad else "broken: " + ", ".join(bad)
