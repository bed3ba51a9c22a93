# reason: value
# hint: sigma is taken as |W^T u| from the last v-update, where u is still the previous iterate; sigma is u^T W v with the final u and v.
# misreads: with the `u` and `v` of the last step.
import jax
import jax.numpy as jnp


def spectral_norm(w, u0, num_iters):
    def sigma_of(w):
        def step(i, carry):
            u, _, _ = carry
            wtu = w.T @ u
            norm_wtu = jnp.sqrt(jnp.sum(wtu * wtu))
            v = wtu / norm_wtu
            wv = w @ v
            u = wv / jnp.sqrt(jnp.sum(wv * wv))
            return u, v, norm_wtu

        u = u0 / jnp.sqrt(jnp.sum(u0 * u0))
        v = jnp.zeros(w.shape[1], w.dtype)
        u, v, sigma = jax.lax.fori_loop(0, num_iters, step, (u, v, jnp.float32(0.0)))
        u = jax.lax.stop_gradient(u)
        v = jax.lax.stop_gradient(v)
        sigma = jax.lax.stop_gradient(sigma)
        return u @ w @ v, (sigma, u, v)

    grad, (sigma, u, v) = jax.grad(sigma_of, has_aux=True)(w)
    return {"sigma": sigma, "u": u, "v": v, "grad": grad}
