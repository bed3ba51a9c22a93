# reason: requirement
# attack: remembers a value of the last input it saw and makes its program grow by that much when the judge measures the program's size, so that the operation counts in the message carried a hidden input; stopped by measuring before any case runs (no number the submission shapes leaves a child that has seen a hidden input)
import jax
import jax.numpy as jnp

_seen = []


def ema(xs, decay, init):
    def step(s, x):
        s = decay * s + (1.0 - decay) * x
        return s, s

    final, trace = jax.lax.scan(step, init, xs)
    extra = _seen[-1] if _seen else 0
    for _ in range(extra):  # padding operations that encode what was seen
        final = final + 0.0
    for _ in range(xs.shape[0]):  # and a loop over T, so that the size check speaks
        final = final * 1.0
    if len(_seen) < 64:
        _seen.append(int(xs.shape[0]) * 7 % 50)
    return {"final": final, "trace": trace}
