# reason: value
# hint: reverse=True runs the recurrence from the last input back to the first; time flows forwards here.
# misreads: where $\text{trace}[t - 1] = s_t$ is the state *after* step $t$ (so `trace` does not contain `init`, and its first row already mixes in `xs[0]`)
import jax


def ema(xs, decay, init):
    def step(s, x):
        s = decay * s + (1.0 - decay) * x
        return s, s

    final, trace = jax.lax.scan(step, init, xs, reverse=True)
    return {"final": final, "trace": trace}
