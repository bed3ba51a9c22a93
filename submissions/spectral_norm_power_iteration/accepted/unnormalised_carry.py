# The loop carries W v unnormalised (each pass normalises what it reads), and u is
# normalised once after the loop; the loop counts from 1 to num_iters inclusive.
import jax
import jax.numpy as jnp


def _normalize(x):
    return x / jnp.linalg.norm(x)


def spectral_norm(w, u0, num_iters):
    def sigma_of(w):
        def step(i, carry):
            wv, _ = carry
            v = _normalize(w.T @ _normalize(wv))
            return w @ v, v

        start = (u0, jnp.zeros(w.shape[1], w.dtype))
        wv, v = jax.lax.fori_loop(1, num_iters + 1, step, start)
        u = jax.lax.stop_gradient(_normalize(wv))
        v = jax.lax.stop_gradient(v)
        sigma = u @ w @ v
        return sigma, (sigma, u, v)

    grad, (sigma, u, v) = jax.grad(sigma_of, has_aux=True)(w)
    return {"sigma": sigma, "u": u, "v": v, "grad": grad}
