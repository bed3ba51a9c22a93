# reason: value
# hint: Adam-style bias correction (dividing by 1 - decay**t) is not part of this task; return the raw states.
# misreads: (element-wise over the `D` entries; no bias correction)
import jax
import jax.numpy as jnp


def ema(xs, decay, init):
    def step(carry, x):
        s, t = carry
        s = decay * s + (1.0 - decay) * x
        t = t + 1.0
        return (s, t), s / (1.0 - decay ** t)

    (_, _), trace = jax.lax.scan(step, (init, jnp.float32(0.0)), xs)
    return {"final": trace[-1], "trace": trace}
