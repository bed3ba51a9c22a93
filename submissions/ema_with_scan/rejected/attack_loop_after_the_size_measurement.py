# reason: requirement
# attack: one scan for the first two calls (the judge's size measurement), a Python loop of scans on every case; stopped by judging the size of the program each case really ran against the measurement
# ema_with_scan: rejected/scan_per_step.py (a Python loop over T, one scan per row),
# except that the first two calls of the entry -- the judge's program-size
# measurement at a small and a large T, made before any case runs -- get one scan
# over the whole sequence. Every later call (the cases) loops over T in Python.
import jax
import jax.numpy as jnp

calls = []


def ema(xs, decay, init):
    def step(s, x):
        s = decay * s + (1.0 - decay) * x
        return s, s

    calls.append(1)
    if len(calls) <= 2:
        final, trace = jax.lax.scan(step, init, xs)
        return {"final": final, "trace": trace}
    s = init
    rows = []
    for t in range(xs.shape[0]):
        s, row = jax.lax.scan(step, s, xs[t:t + 1])
        rows.append(row)
    return {"final": s, "trace": jnp.concatenate(rows, axis=0)}
