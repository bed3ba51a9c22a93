# reason: value
# hint: the scan starts from zeros instead of the given initial state init.
# misreads: With $s_0 = \text{init}$, for every step $t = 1, \dots, T$
import jax
import jax.numpy as jnp


def ema(xs, decay, init):
    def step(s, x):
        s = decay * s + (1.0 - decay) * x
        return s, s

    final, trace = jax.lax.scan(step, jnp.zeros_like(init), xs)
    return {"final": final, "trace": trace}
