# reason: requirement
# A Python loop over the time steps: correct numbers, but no jax.lax.scan at all.
import jax.numpy as jnp


def ema(xs, decay, init):
    s = init
    states = []
    for t in range(xs.shape[0]):
        s = decay * s + (1.0 - decay) * xs[t]
        states.append(s)
    return {"final": s, "trace": jnp.stack(states)}
