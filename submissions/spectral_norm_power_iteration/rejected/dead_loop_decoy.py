# reason: requirement
# A fori_loop runs inside the differentiated function, but its result is discarded;
# u and v come from a Python loop next to it.
import jax
import jax.numpy as jnp


def _normalize(x):
    return x / jnp.sqrt(jnp.sum(x * x))


def spectral_norm(w, u0, num_iters):
    def sigma_of(w):
        def step(i, carry):
            u, _ = carry
            v = _normalize(w.T @ u)
            return _normalize(w @ v), v

        start = (_normalize(u0), jnp.zeros(w.shape[1], w.dtype))
        jax.lax.fori_loop(0, num_iters, step, start)
        u, v = start
        for _ in range(num_iters):
            u, v = step(0, (u, v))
        u = jax.lax.stop_gradient(u)
        v = jax.lax.stop_gradient(v)
        sigma = u @ w @ v
        return sigma, (sigma, u, v)

    grad, (sigma, u, v) = jax.grad(sigma_of, has_aux=True)(w)
    return {"sigma": sigma, "u": u, "v": v, "grad": grad}
