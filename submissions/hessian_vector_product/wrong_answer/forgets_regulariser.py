# reason: value
# hint: the penalty 0.5 * lam * ||w||^2 is part of f, so it adds lam * w to the gradient and lam * v to the product.
# misreads: This is the mean binary cross-entropy of $\operatorname{sigmoid}(z)$ against $y$, plus the usual weight penalty.
import jax
import jax.numpy as jnp


def hessian_vector_product(w, x, y, lam, v):
    def f(w):
        z = x @ w
        return jnp.mean(jax.nn.softplus(z) - y * z)

    g, hv = jax.jvp(jax.grad(f), (w,), (v,))
    return {"grad": g, "hvp": hv}
