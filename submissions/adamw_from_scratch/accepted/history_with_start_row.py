# The scan emits the whole trajectory (parameters and moments after every step); the
# starting state is put in front as row 0, so row t is the state after t steps, and the
# answer is row T of each leaf.
import jax
import jax.numpy as jnp


def adamw(params, grads, lr, b1, b2, eps, weight_decay):
    tmap = jax.tree_util.tree_map
    steps = grads["b"].shape[0]
    ts = jnp.arange(1, steps + 1, dtype=jnp.float32)

    def step(carry, inp):
        p, mu, nu = carry
        g, t = inp
        mu = tmap(lambda m, x: b1 * m + (1.0 - b1) * x, mu, g)
        nu = tmap(lambda v, x: b2 * v + (1.0 - b2) * x * x, nu, g)
        c1, c2 = 1.0 - b1 ** t, 1.0 - b2 ** t
        p = tmap(lambda x, m, v: x - lr * ((m / c1) / (jnp.sqrt(v / c2) + eps) + weight_decay * x), p, mu, nu)
        new = (p, mu, nu)
        return new, new

    zeros = tmap(jnp.zeros_like, params)
    start = (params, zeros, zeros)
    _, history = jax.lax.scan(step, start, (grads, ts))
    # prepend the starting state: trajectory[t] is the state after t steps
    trajectory = tmap(lambda s, h: jnp.concatenate([s[None], h], axis=0), start, history)
    p, mu, nu = tmap(lambda h: h[steps], trajectory)
    return {"new_params": p, "mu": mu, "nu": nu}
