# reason: dtype
# hint: the outputs are rounded and cast to int32; the states are float32 and must stay float32.
# misreads: Both are JAX arrays of dtype `float32`.
import jax
import jax.numpy as jnp


def ema(xs, decay, init):
    def step(s, x):
        s = decay * s + (1.0 - decay) * x
        return s, s

    final, trace = jax.lax.scan(step, init, xs)
    return {"final": jnp.round(final).astype(jnp.int32), "trace": jnp.round(trace).astype(jnp.int32)}
