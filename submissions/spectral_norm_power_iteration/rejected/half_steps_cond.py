# reason: requirement
# 2 * num_iters half-steps in one fori_loop: even passes update v, odd ones u (lax.cond
# picks which). The values are right, but the statement asks for one whole step per
# pass of the loop's body: run a few passes longer, this loop takes half as many steps
# more as the reference does, and u and v do not follow.
import jax
import jax.numpy as jnp


def _normalize(x):
    return x / jnp.sqrt(jnp.dot(x, x))


def spectral_norm(w, u0, num_iters):
    def f(w):
        def half_step(i, uv):
            u, v = uv
            return jax.lax.cond(i % 2 == 0,
                                lambda: (u, _normalize(w.T @ u)),
                                lambda: (_normalize(w @ v), v))

        u, v = jax.lax.fori_loop(0, 2 * num_iters, half_step,
                                 (_normalize(u0), jnp.zeros(w.shape[1], w.dtype)))
        u, v = jax.lax.stop_gradient((u, v))
        sigma = jnp.sum(u[:, None] * w * v[None, :])
        return sigma, (sigma, u, v)

    grad, (sigma, u, v) = jax.grad(f, has_aux=True)(w)
    return {"sigma": sigma, "u": u, "v": v, "grad": grad}
