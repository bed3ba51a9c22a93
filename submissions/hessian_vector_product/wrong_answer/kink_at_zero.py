# reason: value
# hint: max(z, 0) + log1p(exp(-|z|)) has the right values, but JAX takes the slope of |z| at z = 0 to be 1, so its derivative there comes out 0 instead of 0.5; use jax.nn.softplus or jnp.logaddexp(0.0, z).
# misreads: where $\operatorname{softplus}(z) = \log(1 + e^z)$.
import jax
import jax.numpy as jnp


def data_term(w, x, y):
    z = jnp.matmul(x, w)
    sp = jnp.maximum(z, 0.0) + jnp.log1p(jnp.exp(-jnp.abs(z)))
    return jnp.mean(sp - y * z)


def hessian_vector_product(w, x, y, lam, v):
    loss = lambda u: data_term(u, x, y) + 0.5 * lam * jnp.sum(u ** 2)
    out = jax.jvp(lambda u: jax.grad(loss)(u), [w], [v])
    result = {}
    result["grad"] = out[0]
    result["hvp"] = out[1]
    return result
