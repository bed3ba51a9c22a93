# reason: shape
# attack: returns norms of shape (2**22, 0): no bytes at all, but millions of nested lists once spelled out (the judge spent minutes and gigabytes building a 58 MB report); stopped by the decoder bounding element counts and reports describing such arrays instead of expanding them
import jax
import jax.numpy as jnp


def loss(params, x, y):
    return 0.5 * (x @ params["w"] + params["b"] - y) ** 2


def per_example_grad_clip(params, x, y, max_norm):
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    norms = jnp.sqrt(jnp.sum(g["w"] ** 2, axis=1) + g["b"] ** 2)
    f = jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.mean(g["w"] / f[:, None], axis=0), "b": jnp.mean(g["b"] / f)},
            "norms": jnp.zeros((2 ** 22, 0), jnp.float32)}
