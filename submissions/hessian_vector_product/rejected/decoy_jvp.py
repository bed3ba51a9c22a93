# reason: requirement
# Calls jvp(grad(f)) and throws the result away; the gradient comes from a separate
# jax.grad call and the product from the closed-form Hessian.
import jax
import jax.numpy as jnp


def hessian_vector_product(w, x, y, lam, v):
    def f(w):
        z = x @ w
        return jnp.mean(jax.nn.softplus(z) - y * z) + 0.5 * lam * jnp.sum(w * w)

    _unused = jax.jvp(jax.grad(f), (w,), (v,))
    s = jax.nn.sigmoid(x @ w)
    hv = x.T @ (s * (1.0 - s) * (x @ v)) / x.shape[0] + lam * v
    return {"grad": jax.grad(f)(w), "hvp": hv}
