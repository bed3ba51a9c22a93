import jax
import jax.numpy as jnp


def example_loss(params, x, y):
    err = jnp.dot(x, params["w"]) + params["b"] - y
    return 0.5 * err * err


def per_example_grad_clip(params, x, y, max_norm):
    grads = jax.vmap(jax.grad(example_loss), in_axes=(None, 0, 0))(params, x, y)
    sq = jnp.sum(grads["w"] ** 2, axis=1) + grads["b"] ** 2
    # sqrt has an infinite derivative at 0 but its value is fine; the divisor
    # max(1, norm / C) is >= 1, so a zero gradient stays exactly zero.
    norms = jnp.sqrt(sq)
    scale = 1.0 / jnp.maximum(1.0, norms / max_norm)
    clipped_w = grads["w"] * scale[:, None]
    clipped_b = grads["b"] * scale
    return {
        "grads": {"w": jnp.mean(clipped_w, axis=0), "b": jnp.mean(clipped_b)},
        "norms": norms,
    }
