# The update written as "move a fraction (1 - decay) of the gap"; the carry is a tuple.
import jax
import jax.numpy as jnp


def ema(xs, decay, init):
    rate = 1.0 - decay

    def body(carry, x):
        (state,) = carry
        state = state + rate * (x - state)
        return (state,), state

    (last,), states = jax.lax.scan(body, (init,), xs)
    return {"final": last, "trace": states}
