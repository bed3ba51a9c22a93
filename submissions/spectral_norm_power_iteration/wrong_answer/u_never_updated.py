# reason: value
# hint: the loop body computes the new u but puts the old one back into the carry, so u never leaves u0 / |u0|.
# misreads: Every step computes `v` from the current `u` first, then the new `u` from that `v`.
import jax
import jax.numpy as jnp


def _normalize(x):
    return x / jnp.sqrt(jnp.sum(x * x))


def spectral_norm(w, u0, num_iters):
    def sigma_of(w):
        def step(i, carry):
            u, _ = carry
            v = _normalize(w.T @ u)
            u_new = _normalize(w @ v)
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
