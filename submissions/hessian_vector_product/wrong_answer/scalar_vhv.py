# reason: shape
# hint: v^T H v is a single number (the curvature along v); the task asks for the vector H v of shape (D,).
# misreads: `hvp`, the Hessian-vector product $H(w)\,v$, where $H(w)$ is the $D \times D$ matrix of second derivatives of $f$ at $w$; shape `(D,)`
import jax
import jax.numpy as jnp


def hessian_vector_product(w, x, y, lam, v):
    def f(w):
        z = x @ w
        return jnp.mean(jax.nn.softplus(z) - y * z) + 0.5 * lam * jnp.sum(w * w)

    g, hv = jax.jvp(jax.grad(f), (w,), (v,))
    return {"grad": g, "hvp": jnp.vdot(v, hv)}
