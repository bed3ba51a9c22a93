# reason: value
# hint: vectors are divided by the sum of their entries (the L1 norm); normalise with the Euclidean length.
# misreads: Write $\operatorname{normalize}(x) = x / \lvert x \rvert$, where $\lvert x \rvert = \sqrt{\sum_k x_k^2}$ is the Euclidean length.
import jax
import jax.numpy as jnp


def _normalize(x):
    return x / jnp.sum(jnp.abs(x))


def spectral_norm(w, u0, num_iters):
    def sigma_of(w):
        def step(i, carry):
            u, _ = carry
            v = _normalize(w.T @ u)
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
