# reason: value
# hint: the data term is the mean over the N examples, not the sum, so it carries a factor 1/N.
# misreads: This is the mean binary cross-entropy of $\operatorname{sigmoid}(z)$ against $y$
import jax
import jax.numpy as jnp


def hessian_vector_product(w, x, y, lam, v):
    def f(w):
        z = x @ w
        return jnp.sum(jax.nn.softplus(z) - y * z) + 0.5 * lam * jnp.sum(w * w)

    g, hv = jax.jvp(jax.grad(f), (w,), (v,))
    return {"grad": g, "hvp": hv}
