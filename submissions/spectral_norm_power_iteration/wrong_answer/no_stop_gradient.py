# reason: value
# hint: without jax.lax.stop_gradient the gradient also flows back through the power iterations; sigma must be differentiated with u and v held constant, giving grad = u v^T.
# misreads: The gradient `grad` is the derivative of `sigma` with respect to `w` **with `u` and `v` held constant**, as spectral normalisation uses it
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

        u = _normalize(u0)
        v = jnp.zeros(w.shape[1], w.dtype)
        u, v = jax.lax.fori_loop(0, num_iters, step, (u, v))
        # u and v are used as they come out of the loop
        sigma = u @ w @ v
        return sigma, (sigma, u, v)

    grad, (sigma, u, v) = jax.grad(sigma_of, has_aux=True)(w)
    return {"sigma": sigma, "u": u, "v": v, "grad": grad}
