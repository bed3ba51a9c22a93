# reason: requirement
# attack: a real scan for the size measurement, then a Python loop whose results pass through a scan with an identity body; stopped by judging the size of the program each case ran
# ema_with_scan: rejected/python_loop.py (no scan over time at all) made AC by two
# tricks together: (1) the first two calls -- the judge's size measurement at two T,
# made before any case -- get a real scan, so `vectorized` measures that; (2) on the
# cases, the Python loop's results are passed through a scan whose body is the
# identity, so the outputs "come from what the scan returns".
import jax
import jax.numpy as jnp

calls = []


def ema(xs, decay, init):
    calls.append(1)
    if len(calls) <= 2:
        def step(s, x):
            s = decay * s + (1.0 - decay) * x
            return s, s
        final, trace = jax.lax.scan(step, init, xs)
        return {"final": final, "trace": trace}
    s = init
    states = []
    for t in range(xs.shape[0]):
        s = decay * s + (1.0 - decay) * xs[t]
        states.append(s)
    final, trace = jax.lax.scan(lambda c, row: (c, row), s, jnp.stack(states))
    return {"final": final, "trace": trace}
