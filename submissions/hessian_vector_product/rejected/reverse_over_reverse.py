# reason: requirement
# grad of <grad f, v> (reverse-over-reverse) gives H v without jax.jvp.
import jax
import jax.numpy as jnp


def hessian_vector_product(w, x, y, lam, v):
    def f(w):
        z = x @ w
        return jnp.mean(jax.nn.softplus(z) - y * z) + 0.5 * lam * jnp.sum(w * w)

    return {"grad": jax.grad(f)(w), "hvp": jax.grad(lambda u: jnp.vdot(jax.grad(f)(u), v))(w)}
