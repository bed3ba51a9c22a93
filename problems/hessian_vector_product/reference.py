import jax
import jax.numpy as jnp


def hessian_vector_product(w, x, y, lam, v):
    def loss(w):
        z = x @ w
        # softplus(z) - y z is the logistic loss with logits z; logaddexp keeps it finite for large |z|.
        data = jnp.mean(jnp.logaddexp(0.0, z) - y * z)
        return data + 0.5 * lam * jnp.sum(w * w)

    grad, hvp = jax.jvp(jax.grad(loss), (w,), (v,))
    return {"grad": grad, "hvp": hvp}
