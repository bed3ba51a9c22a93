# reason: requirement
# Central differences of jax.grad along v approximate H v without jax.jvp.
import jax
import jax.numpy as jnp


def hessian_vector_product(w, x, y, lam, v):
    def f(w):
        z = x @ w
        return jnp.mean(jax.nn.softplus(z) - y * z) + 0.5 * lam * jnp.sum(w * w)

    g = jax.grad(f)
    eps = 1e-3
    return {"grad": g(w), "hvp": (g(w + eps * v) - g(w - eps * v)) / (2 * eps)}
