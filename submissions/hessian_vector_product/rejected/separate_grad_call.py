# reason: requirement
# The product comes from jvp(grad(f)), but the gradient from a second, separate jax.grad
# call: the statement asks for both outputs from the one jvp call.
import jax
import jax.numpy as jnp


def hessian_vector_product(w, x, y, lam, v):
    def f(w):
        z = x @ w
        return jnp.mean(jax.nn.softplus(z) - y * z) + 0.5 * lam * jnp.sum(w * w)

    _, hv = jax.jvp(jax.grad(f), (w,), (v,))
    return {"grad": jax.grad(f)(w), "hvp": hv}
