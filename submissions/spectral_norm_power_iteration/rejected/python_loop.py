# reason: requirement
# A Python for-loop over the iterations instead of jax.lax.fori_loop: correct numbers,
# but it unrolls num_iters copies of the step into the program and needs a concrete count.
import jax
import jax.numpy as jnp


def _normalize(x):
    return x / jnp.sqrt(jnp.sum(x * x))


def spectral_norm(w, u0, num_iters):
    def sigma_of(w):
        u = _normalize(u0)
        v = jnp.zeros(w.shape[1], w.dtype)
        for _ in range(num_iters):
            v = _normalize(w.T @ u)
            u = _normalize(w @ v)
        u = jax.lax.stop_gradient(u)
        v = jax.lax.stop_gradient(v)
        sigma = u @ w @ v
        return sigma, (sigma, u, v)

    grad, (sigma, u, v) = jax.grad(sigma_of, has_aux=True)(w)
    return {"sigma": sigma, "u": u, "v": v, "grad": grad}
