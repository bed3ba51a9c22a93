# reason: requirement
# grad of jvp (reverse-over-forward) also gives H v for a symmetric Hessian, but the
# problem asks for jvp applied to grad: the nesting is the wrong way round.
import jax
import jax.numpy as jnp


def hessian_vector_product(w, x, y, lam, v):
    def f(w):
        z = x @ w
        return jnp.mean(jax.nn.softplus(z) - y * z) + 0.5 * lam * jnp.sum(w * w)

    directional = lambda u: jax.jvp(f, (u,), (v,))[1]
    return {"grad": jax.grad(f)(w), "hvp": jax.grad(directional)(w)}
