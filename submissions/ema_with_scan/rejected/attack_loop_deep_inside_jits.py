# reason: requirement
# attack: a Python loop over the steps hidden 21 jax.jit levels deep, where a size count with a depth limit stops looking; stopped by counting sub-programs however deep they are nested
import jax
import jax.numpy as jnp


def loop(xs, decay, init):
    s = init
    states = []
    for t in range(xs.shape[0]):
        s = decay * s + (1.0 - decay) * xs[t]
        states.append(s)
    return s, jnp.stack(states)


def nest(f, k):
    for _ in range(k):
        f = (lambda g: jax.jit(lambda *a: g(*a)))(f)
    return f


deep = nest(loop, 22)


def ema(xs, decay, init):
    s, states = deep(xs, decay, init)
    final, trace = jax.lax.scan(lambda c, row: (c, row), s, states)
    return {"final": final, "trace": trace}
