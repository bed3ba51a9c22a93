# Straight vmap(grad(...)) over the batch; clipping and noise leaf by leaf with tree_map.
import jax
import jax.numpy as jnp


def loss_one(params, x, y):
    h = jax.nn.relu(jnp.dot(x, params["layer1"]["w"]) + params["layer1"]["b"])
    logits = jnp.dot(h, params["layer2"]["w"]) + params["layer2"]["b"]
    return jax.nn.logsumexp(logits) - logits[y]


def dp_sgd_step(params, x, y, clip_norm, noise_multiplier, key):
    n = x.shape[0]
    grads = jax.vmap(jax.grad(loss_one), in_axes=(None, 0, 0))(params, x, y)
    sq = jax.tree_util.tree_map(lambda g: jnp.sum(jnp.square(g.reshape(n, -1)), axis=1), grads)
    norms = jnp.sqrt(sum(jax.tree_util.tree_leaves(sq)))
    factor = jnp.maximum(1.0, norms / clip_norm)
    summed = jax.tree_util.tree_map(
        lambda g: jnp.sum(g / factor.reshape((n,) + (1,) * (g.ndim - 1)), axis=0), grads)
    leaves, treedef = jax.tree_util.tree_flatten(summed)
    keys = jax.random.split(key, 4)
    noise = jax.tree_util.tree_unflatten(
        treedef, [jax.random.normal(keys[i], leaf.shape, jnp.float32) for i, leaf in enumerate(leaves)])
    update = jax.tree_util.tree_map(lambda s, z: (s + noise_multiplier * clip_norm * z) / n, summed, noise)
    frac = jnp.mean(jnp.where(norms > clip_norm, 1.0, 0.0)).astype(jnp.float32)
    return {"update": update, "norms": norms, "clipped_fraction": frac}
