# reason: value
# hint: v = W^T u is not normalised; both v and u must be unit vectors after every step.
# misreads: v = normalize(Wᵀ u)
import jax
import jax.numpy as jnp


def _normalize(x):
    return x / jnp.sqrt(jnp.sum(x * x))


def spectral_norm(w, u0, num_iters):
    def sigma_of(w):
        def step(i, carry):
            u, _ = carry
            v = w.T @ u
            u = _normalize(w @ v)
            return u, v

        u = _normalize(u0)
        v = jnp.zeros(w.shape[1], w.dtype)
        u, v = jax.lax.fori_loop(0, num_iters, step, (u, v))
        u = jax.lax.stop_gradient(u)
        v = jax.lax.stop_gradient(v)
        sigma = u @ w @ v
        return sigma, (sigma, u, v)

    grad, (sigma, u, v) = jax.grad(sigma_of, has_aux=True)(w)
    return {"sigma": sigma, "u": u, "v": v, "grad": grad}
