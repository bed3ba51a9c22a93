# reason: requirement
# Calls lax.scan on one row at a time inside a Python loop over T: the scan runs and
# the outputs depend on it, but the traced program grows with the sequence length.
import jax
import jax.numpy as jnp


def ema(xs, decay, init):
    def step(s, x):
        s = decay * s + (1.0 - decay) * x
        return s, s

    s = init
    rows = []
    for t in range(xs.shape[0]):
        s, row = jax.lax.scan(step, s, xs[t:t + 1])
        rows.append(row)
    return {"final": s, "trace": jnp.concatenate(rows, axis=0)}
