# reason: nan
# hint: log(1 + exp(z)) overflows float32 once z > 88 and its derivatives become inf / inf = NaN; use jax.nn.softplus or jnp.logaddexp(0.0, z).
# misreads: The logits can be far outside float32's `exp` range (`|z|` up to 200): `grad` and `hvp` must stay finite.
import jax
import jax.numpy as jnp


def hessian_vector_product(w, x, y, lam, v):
    def f(w):
        z = x @ w
        return jnp.mean(jnp.log(1.0 + jnp.exp(z)) - y * z) + 0.5 * lam * jnp.sum(w * w)

    g, hv = jax.jvp(jax.grad(f), (w,), (v,))
    return {"grad": g, "hvp": hv}
