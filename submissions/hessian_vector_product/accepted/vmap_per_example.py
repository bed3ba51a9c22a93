# Per-example losses with vmap inside the loss, jit on the entry, tuple unpacking.
import jax
import jax.numpy as jnp


def example_loss(w, xi, yi):
    z = jnp.dot(xi, w)
    return jnp.logaddexp(z, 0.0) - yi * z


@jax.jit
def hessian_vector_product(w, x, y, lam, v):
    def f(w):
        per_example = jax.vmap(example_loss, in_axes=(None, 0, 0))(w, x, y)
        return per_example.mean() + 0.5 * lam * (w ** 2).sum()

    (g,), (hv,) = jax.jvp(lambda *p: (jax.grad(f)(*p),), (w,), (v,))
    return {"grad": g, "hvp": hv}
