# Carries only v: the first v comes from u0 before the loop, each pass maps v to the
# next v, and u = normalize(W v) is formed once after the loop.
import jax
import jax.numpy as jnp


def _normalize(x):
    return x / jnp.sqrt(jnp.sum(x * x))


def spectral_norm(w, u0, num_iters):
    def sigma_of(w):
        def next_v(i, v):
            return _normalize(w.T @ _normalize(w @ v))

        v = _normalize(w.T @ _normalize(u0))
        v = jax.lax.fori_loop(1, num_iters, next_v, v)
        v = jax.lax.stop_gradient(v)
        u = jax.lax.stop_gradient(_normalize(w @ v))
        sigma = jnp.dot(u, w @ v)
        return sigma, (sigma, u, v)

    grad, (sigma, u, v) = jax.grad(sigma_of, has_aux=True)(w)
    return {"sigma": sigma, "u": u, "v": v, "grad": grad}
