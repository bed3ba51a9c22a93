# Each example's gradient flattened with ravel_pytree (same leaf order as tree_leaves), under jax.jit.
from functools import partial

import jax
import jax.numpy as jnp
from jax.flatten_util import ravel_pytree


def cross_entropy(params, xi, yi):
    pre = xi @ params["layer1"]["w"] + params["layer1"]["b"]
    hidden = jnp.where(pre > 0.0, pre, 0.0)  # derivative 0 at exactly 0, as jax.nn.relu
    logits = hidden @ params["layer2"]["w"] + params["layer2"]["b"]
    logp = jax.nn.log_softmax(logits)
    return -jnp.sum(jax.nn.one_hot(yi, 5) * logp)


per_example = jax.vmap(jax.grad(cross_entropy), in_axes=(None, 0, 0))


@partial(jax.jit)
def dp_sgd_step(params, x, y, clip_norm, noise_multiplier, key):
    batch = x.shape[0]
    g = per_example(params, x, y)
    flat = jax.vmap(lambda t: ravel_pytree(t)[0])(g)          # (B, P)
    norms = jnp.linalg.norm(flat, axis=1)
    clipped = flat / jnp.maximum(1.0, norms / clip_norm)[:, None]
    _, unravel = ravel_pytree(params)
    leaves, treedef = jax.tree_util.tree_flatten(params)
    keys = jax.random.split(key, len(leaves))
    noise_tree = jax.tree_util.tree_unflatten(
        treedef, [jax.random.normal(k, l.shape, jnp.float32) for k, l in zip(keys, leaves)])
    noise_flat, _ = ravel_pytree(noise_tree)
    flat_update = (clipped.sum(axis=0) + noise_multiplier * clip_norm * noise_flat) / batch
    return {"update": unravel(flat_update), "norms": norms,
            "clipped_fraction": jnp.mean(norms > clip_norm, dtype=jnp.float32)}
