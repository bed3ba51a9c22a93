# reason: value
# hint: a guard of 1e-6 added to each length is not small next to the shortest vectors (a length of 0.01 gets 1e-4 relative error); divide by the length itself, or guard with a far smaller eps.
# misreads: and an `eps` added to a length of `0.01` changes the result by about `eps / 0.01` relative: `1e-12` does no harm, `1e-6` already costs `1e-4`, twice the tolerance.
import jax
import jax.numpy as jnp


def _normalize(x):
    return x / (jnp.linalg.norm(x) + 1e-6)


def spectral_norm(w, u0, num_iters):
    def sigma_of(w):
        def step(i, carry):
            u, _ = carry
            v = _normalize(w.T @ u)
            return _normalize(w @ v), v

        u, v = jax.lax.fori_loop(0, num_iters, step, (_normalize(u0), jnp.zeros(w.shape[1], w.dtype)))
        u, v = jax.lax.stop_gradient(u), jax.lax.stop_gradient(v)
        sigma = u @ w @ v
        return sigma, (sigma, u, v)

    grad, (sigma, u, v) = jax.grad(sigma_of, has_aux=True)(w)
    return {"sigma": sigma, "u": u, "v": v, "grad": grad}
