# reason: requirement
# Builds the Hessian as jacfwd(grad(f)) and multiplies: correct numbers, but jax.jacfwd is forbidden.
import jax
import jax.numpy as jnp


def hessian_vector_product(w, x, y, lam, v):
    def f(w):
        z = x @ w
        return jnp.mean(jax.nn.softplus(z) - y * z) + 0.5 * lam * jnp.sum(w * w)

    g, _ = jax.jvp(jax.grad(f), (w,), (v,))
    hessian = jax.jacfwd(jax.grad(f))(w)
    return {"grad": g, "hvp": hessian @ v}
