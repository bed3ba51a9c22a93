# One scalar EMA per feature: scan over time for a single column, vmapped over the D columns.
from functools import partial

import jax
import jax.numpy as jnp
from jax import lax


def column_ema(column, start, decay):
    def step(s, x):
        s = decay * s + (1 - decay) * x
        return s, s

    return lax.scan(step, start, column)


def ema(xs, decay, init):
    last, cols = jax.vmap(partial(column_ema, decay=decay), in_axes=(1, 0))(xs, init)
    return {"final": last, "trace": jnp.transpose(cols)}
