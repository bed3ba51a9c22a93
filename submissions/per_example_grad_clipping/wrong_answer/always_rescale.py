# reason: value
# hint: every gradient is rescaled to length C, also those already shorter; clipping only shrinks.
# misreads: A gradient no longer than `max_norm` is left alone; a longer one is scaled down to length `max_norm`.
import jax
import jax.numpy as jnp


def loss(params, x, y):
    return 0.5 * (x @ params["w"] + params["b"] - y) ** 2


def per_example_grad_clip(params, x, y, max_norm):
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    norms = jnp.sqrt(jnp.sum(g["w"] ** 2, axis=1) + g["b"] ** 2)
    f = jnp.where(norms > 0, norms / max_norm, 1.0)
    return {"grads": {"w": jnp.mean(g["w"] / f[:, None], axis=0), "b": jnp.mean(g["b"] / f)}, "norms": norms}
