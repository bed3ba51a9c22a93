# reason: requirement
# 'final' comes from the scan, but 'trace' is rebuilt with a cumsum of rescaled inputs
# (s_t / decay**t = init + sum_k (1 - decay) * x_k / decay**k), so it ignores the scan's states.
import jax
import jax.numpy as jnp


def ema(xs, decay, init):
    final, _ = jax.lax.scan(lambda s, x: (decay * s + (1 - decay) * x, None), init, xs)
    d = jnp.maximum(decay, 1e-3)  # keeps decay**-t finite for short sequences
    powers = jnp.power(d, jnp.arange(1, xs.shape[0] + 1, dtype=jnp.float32))[:, None]
    trace = powers * (init + jnp.cumsum((1 - decay) * xs / powers, axis=0))
    return {"final": final, "trace": trace}
