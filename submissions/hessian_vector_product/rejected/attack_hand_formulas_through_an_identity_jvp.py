# reason: requirement
# attack: the gradient and Hessian-vector product written by hand, routed through jvp(grad(u -> |u|^2 / 2)), which returns them unchanged; stopped by the dependence probe's shift of the differentiated argument
# hessian_vector_product: the gradient and the Hessian-vector product of the
# L2-regularised logistic loss are written out by hand, then passed through
# jax.jvp(jax.grad(q), (g,), (h,)) with q(u) = 0.5 * |u|^2, whose gradient is the
# identity: jvp returns (g, h) unchanged. No derivative of the loss is taken by JAX.
import jax
import jax.numpy as jnp


def hessian_vector_product(w, x, y, lam, v):
    n = x.shape[0]
    z = x @ w
    p = jax.nn.sigmoid(z)
    g = x.T @ (p - y) / n + lam * w                      # hand-written gradient
    h = x.T @ (p * (1.0 - p) * (x @ v)) / n + lam * v    # hand-written H v

    def q(u):
        return 0.5 * jnp.sum(u * u)

    grad, hvp = jax.jvp(jax.grad(q), (g,), (h,))
    return {"grad": grad, "hvp": hvp}
