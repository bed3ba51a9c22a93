# reason: value
# hint: the scan emits the state before the update, so 'trace' starts with init and lags one step behind.
# misreads: where $\text{trace}[t - 1] = s_t$ is the state *after* step $t$ (so `trace` does not contain `init`, and its first row already mixes in `xs[0]`)
import jax


def ema(xs, decay, init):
    def step(s, x):
        new = decay * s + (1.0 - decay) * x
        return new, s

    final, trace = jax.lax.scan(step, init, xs)
    return {"final": final, "trace": trace}
