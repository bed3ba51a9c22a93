# reason: value
# hint: jax.jvp returns (primal_out, tangent_out); the Hessian-vector product is the tangent, element [1], not the gradient at [0].
# misreads: its primal output is `grad`, its tangent output is `hvp`
import jax
import jax.numpy as jnp


def hessian_vector_product(w, x, y, lam, v):
    def f(w):
        z = x @ w
        return jnp.mean(jax.nn.softplus(z) - y * z) + 0.5 * lam * jnp.sum(w * w)

    out = jax.jvp(jax.grad(f), (w,), (v,))
    return {"grad": out[0], "hvp": out[0]}
