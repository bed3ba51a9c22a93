# reason: value
# hint: the clipped gradients are summed; the task asks for their mean over the N examples.
# misreads: The mean of the clipped gradients over the $N$ examples.
import jax
import jax.numpy as jnp


def loss(params, x, y):
    return 0.5 * (x @ params["w"] + params["b"] - y) ** 2


def per_example_grad_clip(params, x, y, max_norm):
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    norms = jnp.sqrt(jnp.sum(g["w"] ** 2, axis=1) + g["b"] ** 2)
    f = jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.sum(g["w"] / f[:, None], axis=0), "b": jnp.sum(g["b"] / f)}, "norms": norms}
