# reason: dtype
# hint: the iteration runs in float16, so the outputs are float16 instead of float32.
# misreads: All four are JAX arrays of dtype `float32`; `sigma` has shape `()`.
import jax
import jax.numpy as jnp


def _normalize(x):
    return x / jnp.sqrt(jnp.sum(x * x))


def spectral_norm(w, u0, num_iters):
    def sigma_of(w):
        def step(i, carry):
            u, _ = carry
            v = _normalize(w.T @ u)
            u = _normalize(w @ v)
            return u, v

        u = _normalize(u0.astype(jnp.float16))
        v = jnp.zeros(w.shape[1], jnp.float16)
        u, v = jax.lax.fori_loop(0, num_iters, step, (u, v))
        u = jax.lax.stop_gradient(u)
        v = jax.lax.stop_gradient(v)
        sigma = u @ w @ v
        return sigma, (sigma, u, v)

    grad, (sigma, u, v) = jax.grad(sigma_of, has_aux=True)(w.astype(jnp.float16))
    return {"sigma": sigma, "u": u, "v": v, "grad": grad}
