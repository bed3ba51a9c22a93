# reason: requirement
# 'final' comes from the scan, but 'trace' is rebuilt in closed form as a lower-
# triangular matrix of decay powers times the inputs, so it ignores the scan's states
# (and is right on every case: only the dependence probe tells).
import jax
import jax.numpy as jnp


def ema(xs, decay, init):
    final, _ = jax.lax.scan(lambda s, x: (decay * s + (1 - decay) * x, None), init, xs)
    t = jnp.arange(xs.shape[0], dtype=jnp.float32)
    gaps = t[:, None] - t[None, :]
    weights = jnp.where(gaps >= 0, jnp.power(decay, jnp.maximum(gaps, 0.0)), 0.0)
    trace = weights @ ((1 - decay) * xs) + jnp.power(decay, t + 1.0)[:, None] * init
    return {"final": final, "trace": trace}
