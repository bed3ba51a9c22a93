# reason: requirement
# attack: a Python loop over the steps through an identity scan, padded with dummy operations that shrink as T grows, so the program is no larger at the large T; stopped by requiring the measured programs and every case's program to be alike in size, not merely not growing
import jax
import jax.numpy as jnp

T_MAX = 16


def ema(xs, decay, init):
    T = xs.shape[0]
    s = init
    states = []
    for t in range(T):
        s = decay * s + (1.0 - decay) * xs[t]
        states.append(s)
    z = jnp.zeros_like(init)
    for _ in range(20 * (T_MAX - T)):  # padding: fewer dummy ops the longer the loop
        z = z * 0.5
    final, trace = jax.lax.scan(lambda c, row: (c, row), s + z, jnp.stack(states))
    return {"final": final, "trace": trace}
