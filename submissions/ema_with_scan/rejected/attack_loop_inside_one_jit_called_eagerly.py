# reason: requirement
# attack: an entry that cannot be traced, so its eager run is counted, with the loop inside one jax.jit call (one dispatch through JAX's C++ path, whatever T); stopped by the submission's jax.jit adding its program's size to the eager count
import jax
import jax.numpy as jnp


@jax.jit
def loop(xs, decay, init):
    s = init
    states = []
    for t in range(xs.shape[0]):
        s = decay * s + (1.0 - decay) * xs[t]
        states.append(s)
    return s, jnp.stack(states)


def ema(xs, decay, init):
    if float(decay) < -1.0:  # never true: only makes the entry untraceable
        return None
    s, states = loop(xs, decay, init)
    final, trace = jax.lax.scan(lambda c, row: (c, row), s, states)
    return {"final": final, "trace": trace}
