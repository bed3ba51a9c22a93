import jax
import jax.numpy as jnp


def ema(xs, decay, init):
    def step(state, x):
        new = decay * state + (1.0 - decay) * x
        return new, new

    final, trace = jax.lax.scan(step, init, xs)
    return {"final": final, "trace": trace}
