# reason: memory
# A 3.6 GB intermediate that the result depends on, far above the 1024 MB limit.
import jax
import jax.numpy as jnp


def loss(params, x, y):
    return 0.5 * (x @ params["w"] + params["b"] - y) ** 2


def per_example_grad_clip(params, x, y, max_norm):
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    big = jnp.outer(jnp.arange(30000.0) * max_norm, jnp.ones(30000))
    extra = jnp.cumsum(big, axis=1)[: x.shape[0], -1] * 0.0
    norms = jnp.sqrt(jnp.sum(g["w"] ** 2, axis=1) + g["b"] ** 2) + extra
    f = jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.mean(g["w"] / f[:, None], axis=0), "b": jnp.mean(g["b"] / f)}, "norms": norms}
