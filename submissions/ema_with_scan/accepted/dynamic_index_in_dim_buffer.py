# A scan over the step indices: row i is read with lax.dynamic_index_in_dim and written
# into a trace buffer carried by the scan with lax.dynamic_update_index_in_dim (both
# were RE "not available to submissions" before the allow-list covered all of jax.lax).
import jax
import jax.numpy as jnp
from jax import lax


def ema(xs, decay, init):
    steps = xs.shape[0]

    def body(carry, i):
        state, buffer = carry
        x = lax.dynamic_index_in_dim(xs, i, axis=0, keepdims=False)
        state = decay * state + (1.0 - decay) * x
        buffer = lax.dynamic_update_index_in_dim(buffer, state, i, axis=0)
        return (state, buffer), None

    start = (init, jnp.zeros_like(xs))
    (final, trace), _ = lax.scan(body, start, jnp.arange(steps))
    return {"final": final, "trace": trace}
