# reason: time
# Clips and sums the per-example gradients two examples at a time in a lax.while_loop that stops when its index equals the batch size: for an odd batch (only hidden cases have one) the index steps over it and the loop never ends.
import jax
import jax.numpy as jnp
from jax import lax


def loss(params, x, y):
    h = jax.nn.relu(x @ params["layer1"]["w"] + params["layer1"]["b"])
    logits = h @ params["layer2"]["w"] + params["layer2"]["b"]
    return -jax.nn.log_softmax(logits)[y]


def dp_sgd_step(params, x, y, clip_norm, noise_multiplier, key):
    n = x.shape[0]
    per_example = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))

    def microbatch(state):
        i, total, norms = state
        rows = i + jnp.arange(2)
        g = per_example(params, jnp.take(x, rows, axis=0, mode="clip"), jnp.take(y, rows, axis=0, mode="clip"))
        leaves = jax.tree_util.tree_leaves(g)
        norm = jnp.sqrt(sum(jnp.sum(t.reshape(2, -1) ** 2, axis=1) for t in leaves))
        scale = 1.0 / jnp.maximum(1.0, norm / clip_norm)
        total = jax.tree_util.tree_map(lambda s, t: s + jnp.tensordot(scale, t, axes=1), total, g)
        return i + 2, total, norms.at[rows].set(norm, mode="drop")

    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    _, total, norms = lax.while_loop(lambda s: s[0] != n, microbatch, (jnp.int32(0), zeros, jnp.zeros(n)))
    leaves, treedef = jax.tree_util.tree_flatten(total)
    keys = jax.random.split(key, 4)
    out = [(t + noise_multiplier * clip_norm * jax.random.normal(k, t.shape, jnp.float32)) / n
           for t, k in zip(leaves, keys)]
    return {"update": jax.tree_util.tree_unflatten(treedef, out), "norms": norms,
            "clipped_fraction": jnp.mean((norms > clip_norm).astype(jnp.float32))}
