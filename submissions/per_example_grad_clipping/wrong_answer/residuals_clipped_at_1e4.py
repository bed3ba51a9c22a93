# reason: value
# hint: each example's loss squares its residual as it is; capping residuals changes the norms of the examples whose residual is large (the inputs allow residuals up to about 4e6).
# misreads: and its loss is the squared error
# A "robust" per-example loss whose residual is clipped at +-1e4. A clipped gradient keeps
# its direction, so the clipped gradients stay right; the norms reported are wrong wherever
# a residual passes 1e4, which the constraints allow (4 * 1000 * 1000 + 2000).
import jax
import jax.numpy as jnp


def example_loss(params, x, y):
    err = jnp.clip(jnp.dot(x, params["w"]) + params["b"] - y, -1e4, 1e4)
    return 0.5 * err * err


def per_example_grad_clip(params, x, y, max_norm):
    grads = jax.vmap(jax.grad(example_loss), in_axes=(None, 0, 0))(params, x, y)
    norms = jnp.sqrt(jnp.sum(grads["w"] ** 2, axis=1) + grads["b"] ** 2)
    scale = 1.0 / jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.mean(grads["w"] * scale[:, None], axis=0), "b": jnp.mean(grads["b"] * scale)},
            "norms": norms}
