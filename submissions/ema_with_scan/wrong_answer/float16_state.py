# reason: dtype
# hint: the state is carried in float16 to save memory, so the outputs are float16 instead of float32.
# misreads: Both are JAX arrays of dtype `float32`.
import jax
import jax.numpy as jnp


def ema(xs, decay, init):
    def step(s, x):
        s = (decay * s + (1.0 - decay) * x).astype(jnp.float16)
        return s, s

    final, trace = jax.lax.scan(step, init.astype(jnp.float16), xs)
    return {"final": final, "trace": trace}
