# reason: requirement
# grad is the primal output of jvp(grad(f)), but the product comes from the closed-form
# Hessian X^T diag(s (1 - s)) X / N + lam I: the tangent the jvp computes is ignored.
import jax
import jax.numpy as jnp


def hessian_vector_product(w, x, y, lam, v):
    def f(w):
        z = x @ w
        return jnp.mean(jax.nn.softplus(z) - y * z) + 0.5 * lam * jnp.sum(w * w)

    g, _ = jax.jvp(jax.grad(f), (w,), (v,))
    s = jax.nn.sigmoid(x @ w)
    return {"grad": g, "hvp": x.T @ (s * (1.0 - s) * (x @ v)) / x.shape[0] + lam * v}
