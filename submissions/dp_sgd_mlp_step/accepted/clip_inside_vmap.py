# Each example is handled whole inside the vmap: its gradient, its norm and its clipped
# gradient; only the sum over the batch, the noise and the average are done outside.
import jax
import jax.numpy as jnp


def loss_one(params, x, y):
    h = jax.nn.relu(x @ params["layer1"]["w"] + params["layer1"]["b"])
    logits = h @ params["layer2"]["w"] + params["layer2"]["b"]
    return -jax.nn.log_softmax(logits)[y]


def dp_sgd_step(params, x, y, clip_norm, noise_multiplier, key):
    batch = x.shape[0]

    def clipped_one(xi, yi):
        g = jax.grad(loss_one)(params, xi, yi)
        flat = jnp.concatenate([leaf.ravel() for leaf in jax.tree_util.tree_leaves(g)])
        norm = jnp.sqrt(jnp.sum(flat * flat))
        div = jnp.maximum(1.0, norm / clip_norm)
        return jax.tree_util.tree_map(lambda leaf: leaf / div, g), norm

    clipped, norms = jax.vmap(clipped_one)(x, y)
    summed = jax.tree_util.tree_map(lambda t: t.sum(axis=0), clipped)

    leaves, treedef = jax.tree_util.tree_flatten(summed)
    keys = jax.random.split(key, 4)
    std = noise_multiplier * clip_norm
    noisy = [(s + std * jax.random.normal(keys[i], s.shape, jnp.float32)) / batch for i, s in enumerate(leaves)]
    fraction = jnp.sum(norms > clip_norm).astype(jnp.float32) / batch
    return {"update": jax.tree_util.tree_unflatten(treedef, noisy), "norms": norms,
            "clipped_fraction": fraction}
