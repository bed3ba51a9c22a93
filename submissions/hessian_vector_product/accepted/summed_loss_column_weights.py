# The weights as a (D, 1) column and the loss summed rather than averaged; jvp of its
# gradient is divided by N afterwards and flattened back to vectors of shape (D,).
import jax
import jax.numpy as jnp


def hessian_vector_product(w, x, y, lam, v):
    n = x.shape[0]

    def total_loss(w_col):
        z = (x @ w_col)[:, 0]
        return jnp.sum(jax.nn.softplus(z) - y * z) + 0.5 * n * lam * jnp.sum(w_col ** 2)

    g_col, hv_col = jax.jvp(jax.grad(total_loss), (w[:, None],), (v[:, None],))
    return {"grad": (g_col / n).reshape(-1), "hvp": (hv_col / n).reshape(-1)}
