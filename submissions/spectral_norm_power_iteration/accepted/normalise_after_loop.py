# The reference's loop, then a defensive normalisation of both vectors after it: the
# loop's vectors are unit vectors already, so the extra step changes nothing.
import jax
import jax.numpy as jnp


def _normalize(x):
    return x / jnp.linalg.norm(x)


def spectral_norm(w, u0, num_iters):
    def sigma_of(w):
        def step(i, carry):
            u, _ = carry
            v = _normalize(w.T @ u)
            return _normalize(w @ v), v

        start = (_normalize(u0), jnp.zeros(w.shape[1], w.dtype))
        u, v = jax.lax.fori_loop(0, num_iters, step, start)
        u, v = _normalize(u), _normalize(v)
        u, v = jax.lax.stop_gradient(u), jax.lax.stop_gradient(v)
        sigma = u @ w @ v
        return sigma, (sigma, u, v)

    grad, (sigma, u, v) = jax.grad(sigma_of, has_aux=True)(w)
    return {"sigma": sigma, "u": u, "v": v, "grad": grad}
