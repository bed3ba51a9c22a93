# reason: value
# hint: each leaf is clipped with its own norm; the norm must run over the whole gradient (all four leaves together).
# misreads: **One norm per example**, over *all* parameters together: $n_i$ is the square root of the sum of the squares of every entry of all four leaves of $g_i$.
import jax
import jax.numpy as jnp


def loss(params, x, y):
    h = jax.nn.relu(x @ params["layer1"]["w"] + params["layer1"]["b"])
    logits = h @ params["layer2"]["w"] + params["layer2"]["b"]
    return -jax.nn.log_softmax(logits)[y]


def dp_sgd_step(params, x, y, clip_norm, noise_multiplier, key):
    n = x.shape[0]
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    leaf_norms = jax.tree_util.tree_map(lambda t: jnp.sqrt(jnp.sum(t.reshape(n, -1) ** 2, axis=1)), g)
    norms = jnp.sqrt(sum(v ** 2 for v in jax.tree_util.tree_leaves(leaf_norms)))
    clipped = jax.tree_util.tree_map(
        lambda t, ln: t / jnp.maximum(1.0, ln / clip_norm).reshape((n,) + (1,) * (t.ndim - 1)), g, leaf_norms)
    leaves, treedef = jax.tree_util.tree_flatten(clipped)
    keys = jax.random.split(key, 4)
    out = [(jnp.sum(t, axis=0) + noise_multiplier * clip_norm * jax.random.normal(k, t.shape[1:], jnp.float32)) / n
           for t, k in zip(leaves, keys)]
    return {"update": jax.tree_util.tree_unflatten(treedef, out), "norms": norms,
            "clipped_fraction": jnp.mean((norms > clip_norm).astype(jnp.float32))}
