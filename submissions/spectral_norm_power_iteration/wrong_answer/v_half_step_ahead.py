# reason: value
# hint: v is computed once before the loop and the body then updates u before v, so the final v is one half-step ahead of u; each step computes v from u first, then u from that v.
# misreads: Every step computes `v` from the current `u` first, then the new `u` from that `v`.
import jax
import jax.numpy as jnp


def _normalize(x):
    return x / jnp.sqrt(jnp.sum(x * x))


def spectral_norm(w, u0, num_iters):
    def sigma_of(w):
        def step(i, carry):
            _, v = carry
            u = _normalize(w @ v)
            v = _normalize(w.T @ u)
            return u, v

        u = _normalize(u0)
        v = _normalize(w.T @ u)
        u, v = jax.lax.fori_loop(0, num_iters, step, (u, v))
        u = jax.lax.stop_gradient(u)
        v = jax.lax.stop_gradient(v)
        sigma = u @ w @ v
        return sigma, (sigma, u, v)

    grad, (sigma, u, v) = jax.grad(sigma_of, has_aux=True)(w)
    return {"sigma": sigma, "u": u, "v": v, "grad": grad}
