# Both leaves flattened by hand into one vector (reshape + concatenate), the state kept as
# one (3, K) matrix whose rows are parameters, mu and nu; after the scan the rows are
# picked out and cut back into the two leaves.
import jax
import jax.numpy as jnp


def adamw(params, grads, lr, b1, b2, eps, weight_decay):
    m_rows, n_cols = params["w"].shape
    size_w = m_rows * n_cols
    steps = grads["w"].shape[0]

    flat_p = jnp.concatenate([params["w"].reshape(-1), params["b"]])
    flat_g = jnp.concatenate([grads["w"].reshape(steps, -1), grads["b"]], axis=1)  # (T, K)
    state0 = jnp.stack([flat_p, jnp.zeros_like(flat_p), jnp.zeros_like(flat_p)])

    def step(carry, g):
        state, t = carry
        t = t + 1
        p, m, v = state[0], state[1], state[2]
        m = b1 * m + (1.0 - b1) * g
        v = b2 * v + (1.0 - b2) * g * g
        m_hat = m / (1.0 - b1 ** t)
        v_hat = v / (1.0 - b2 ** t)
        p = p - lr * (m_hat / (jnp.sqrt(v_hat) + eps) + weight_decay * p)
        return (jnp.stack([p, m, v]), t), None

    (state, _), _ = jax.lax.scan(step, (state0, jnp.int32(0)), flat_g)

    def unflatten(row):
        return {"w": row[:size_w].reshape(m_rows, n_cols), "b": row[size_w:]}

    return {"new_params": unflatten(state[0]), "mu": unflatten(state[1]), "nu": unflatten(state[2])}
