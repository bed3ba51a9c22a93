# Clipping written as direction times length: each per-example gradient (stacked into a
# (N, D + 1) matrix with hstack) is normalised to a unit vector and rescaled to
# min(norm, max_norm); a zero gradient keeps direction 0.
import jax
import jax.numpy as jnp


def loss(params, x, y):
    return 0.5 * jnp.square(x @ params["w"] + params["b"] - y)


def per_example_grad_clip(params, x, y, max_norm):
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    mat = jnp.hstack([g["w"], g["b"].reshape(-1, 1)])
    norms = jnp.linalg.norm(mat, axis=1)
    direction = mat / jnp.where(norms > 0, norms, 1.0)[:, None]
    clipped = direction * jnp.minimum(norms, max_norm)[:, None]
    mean = clipped.mean(axis=0)
    return {"grads": {"w": mean[:-1], "b": mean[-1]}, "norms": norms}
