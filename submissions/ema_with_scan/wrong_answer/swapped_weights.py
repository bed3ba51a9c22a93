# reason: value
# hint: decay and 1 - decay are swapped: decay weighs the old state, 1 - decay the new input.
# misreads: $s_t = \text{decay} \cdot s_{t-1} + (1 - \text{decay}) \cdot \text{xs}[t - 1]$
import jax


def ema(xs, decay, init):
    def step(s, x):
        s = (1.0 - decay) * s + decay * x
        return s, s

    final, trace = jax.lax.scan(step, init, xs)
    return {"final": final, "trace": trace}
