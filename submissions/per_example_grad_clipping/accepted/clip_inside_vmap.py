# The whole per-example work sits inside the vmapped function: the gradient, its norm
# over both leaves and the clipped gradient; outside, only the mean over the batch.
import jax
import jax.numpy as jnp


def example_loss(params, x, y):
    return 0.5 * (jnp.dot(x, params["w"]) + params["b"] - y) ** 2


def per_example_grad_clip(params, x, y, max_norm):
    def clipped(xi, yi):
        g = jax.grad(example_loss)(params, xi, yi)
        norm = jnp.sqrt(jnp.sum(g["w"] ** 2) + g["b"] ** 2)
        div = jnp.maximum(1.0, norm / max_norm)
        return {"w": g["w"] / div, "b": g["b"] / div}, norm

    per_ex, norms = jax.vmap(clipped)(x, y)
    return {"grads": jax.tree_util.tree_map(lambda t: jnp.mean(t, axis=0), per_ex), "norms": norms}
