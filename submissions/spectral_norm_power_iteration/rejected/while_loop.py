# reason: requirement
# A jax.lax.while_loop with a step counter in the carry: the same iteration, but the
# problem asks for jax.lax.fori_loop.
import jax
import jax.numpy as jnp


def _normalize(x):
    return x / jnp.sqrt(jnp.sum(x * x))


def spectral_norm(w, u0, num_iters):
    def sigma_of(w):
        def body(state):
            i, u, _ = state
            v = _normalize(w.T @ u)
            return i + 1, _normalize(w @ v), v

        state = (0, _normalize(u0), jnp.zeros(w.shape[1], w.dtype))
        _, u, v = jax.lax.while_loop(lambda s: s[0] < num_iters, body, state)
        u = jax.lax.stop_gradient(u)
        v = jax.lax.stop_gradient(v)
        sigma = u @ w @ v
        return sigma, (sigma, u, v)

    grad, (sigma, u, v) = jax.grad(sigma_of, has_aux=True)(w)
    return {"sigma": sigma, "u": u, "v": v, "grad": grad}
