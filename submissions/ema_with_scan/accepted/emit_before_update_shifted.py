# The scan emits the state it was handed (before the update); the trace is then
# realigned by dropping that first row (init) and appending the final carry.
import jax
import jax.numpy as jnp


def ema(xs, decay, init):
    def step(s, x):
        return decay * s + (1.0 - decay) * x, s

    final, before = jax.lax.scan(step, init, xs)
    trace = jnp.concatenate([before[1:], final[None, :]], axis=0)
    return {"final": final, "trace": trace}
