# reason: requirement
# Materialises the D x D Hessian with jax.hessian, which this problem forbids.
import jax
import jax.numpy as jnp


def hessian_vector_product(w, x, y, lam, v):
    def f(w):
        z = x @ w
        return jnp.mean(jax.nn.softplus(z) - y * z) + 0.5 * lam * jnp.sum(w * w)

    g, _ = jax.jvp(jax.grad(f), (w,), (v,))
    return {"grad": g, "hvp": jax.hessian(f)(w) @ v}
