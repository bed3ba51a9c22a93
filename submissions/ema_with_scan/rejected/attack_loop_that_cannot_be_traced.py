# reason: requirement
# attack: the rejected scan_per_step.py plus one float() of a traced value, so that the program cannot be traced at two sizes; "not judged" used to pass, turning a Python loop into AC; stopped by measuring eager dispatches instead (the vectorisation check never passes without evidence)
import jax
import jax.numpy as jnp


def ema(xs, decay, init):
    def step(s, x):
        s = decay * s + (1.0 - decay) * x
        return s, s

    if float(decay) > 1.0:  # never true, but a traced decay cannot be turned into a float
        return {"final": init, "trace": xs}
    s = init
    rows = []
    for t in range(xs.shape[0]):
        s, row = jax.lax.scan(step, s, xs[t:t + 1])
        rows.append(row)
    return {"final": s, "trace": jnp.concatenate(rows, axis=0)}
