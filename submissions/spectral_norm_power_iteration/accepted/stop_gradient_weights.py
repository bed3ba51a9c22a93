# Stops the gradient at the weights the loop reads instead of at its results, and takes
# sigma as |W v| (equal to u^T W v once u = W v / |W v|).
import jax
import jax.numpy as jnp


def spectral_norm(w, u0, num_iters):
    def sigma_of(w):
        w_const = jax.lax.stop_gradient(w)

        def body(_, uv):
            u, _ = uv
            v = w_const.T @ u
            v = v / jnp.linalg.norm(v)
            u = w_const @ v
            u = u / jnp.linalg.norm(u)
            return u, v

        start = (u0 / jnp.linalg.norm(u0), jnp.zeros_like(w[0]))
        u, v = jax.lax.fori_loop(0, num_iters, body, start)
        sigma = jnp.linalg.norm(w @ v)
        return sigma, (u, v)

    grad, (u, v) = jax.grad(sigma_of, has_aux=True)(w)
    sigma = jnp.dot(u, w @ v)
    return {"sigma": sigma, "u": u, "v": v, "grad": grad}
