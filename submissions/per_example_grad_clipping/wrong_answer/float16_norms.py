# reason: dtype
# hint: the outputs must be float32; casting to a smaller dtype loses precision.
# misreads: All three values are JAX arrays of dtype `float32`.
import jax
import jax.numpy as jnp


def loss(params, x, y):
    return 0.5 * (x @ params["w"] + params["b"] - y) ** 2


def per_example_grad_clip(params, x, y, max_norm):
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    norms = jnp.sqrt(jnp.sum(g["w"] ** 2, axis=1) + g["b"] ** 2)
    f = jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.mean(g["w"] / f[:, None], axis=0), "b": jnp.mean(g["b"] / f)},
            "norms": norms.astype(jnp.float16)}
