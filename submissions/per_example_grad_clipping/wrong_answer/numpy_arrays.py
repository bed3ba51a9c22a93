# reason: type
# hint: return JAX arrays (jnp), not NumPy arrays.
# misreads: All three values are JAX arrays of dtype `float32`.
import jax
import jax.numpy as jnp
import numpy as np


def loss(params, x, y):
    return 0.5 * (x @ params["w"] + params["b"] - y) ** 2


def per_example_grad_clip(params, x, y, max_norm):
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    norms = jnp.sqrt(jnp.sum(g["w"] ** 2, axis=1) + g["b"] ** 2)
    f = jnp.maximum(1.0, norms / max_norm)
    w = jnp.mean(g["w"] / f[:, None], axis=0)
    return {"grads": {"w": np.asarray(w), "b": jnp.mean(g["b"] / f)}, "norms": norms}
