# reason: time
# Scans the sequence in chunks of up to four steps inside a lax.while_loop that stops when its index equals T: when T is over four and not a multiple of four (only hidden cases have such a T) the index steps over T and the loop never ends.
import jax
import jax.numpy as jnp
from jax import lax


def ema(xs, decay, init):
    t = xs.shape[0]
    chunk = min(t, 4)

    def step(s, x):
        s = decay * s + (1.0 - decay) * x
        return s, s

    def next_chunk(state):
        i, s, trace = state
        s, rows = lax.scan(step, s, lax.dynamic_slice_in_dim(xs, i, chunk))
        return i + chunk, s, lax.dynamic_update_slice(trace, rows, (i, 0))

    _, final, trace = lax.while_loop(lambda state: state[0] != t, next_chunk, (0, init, jnp.zeros_like(xs)))
    return {"final": final, "trace": trace}
