import jax
import jax.numpy as jnp


def example_loss(params, x, y):
    """Softmax cross-entropy of ONE example: x has shape (20,), y is an integer label."""
    h = jax.nn.relu(x @ params["layer1"]["w"] + params["layer1"]["b"])
    logits = h @ params["layer2"]["w"] + params["layer2"]["b"]
    return -jax.nn.log_softmax(logits)[y]


def dp_sgd_step(params, x, y, clip_norm, noise_multiplier, key):
    batch = x.shape[0]
    # One gradient pytree per example; every leaf gains a leading batch axis.
    grads = jax.vmap(jax.grad(example_loss), in_axes=(None, 0, 0))(params, x, y)
    leaves, treedef = jax.tree_util.tree_flatten(grads)
    sq = sum(jnp.sum(g.reshape(batch, -1) ** 2, axis=1) for g in leaves)
    norms = jnp.sqrt(sq)
    # Divide by max(1, norm / C): never by zero, so a zero gradient stays zero.
    scale = 1.0 / jnp.maximum(1.0, norms / clip_norm)
    summed = [jnp.sum(g * scale.reshape((batch,) + (1,) * (g.ndim - 1)), axis=0) for g in leaves]
    # Leaves in tree_leaves order: layer1.b, layer1.w, layer2.b, layer2.w.
    keys = jax.random.split(key, len(summed))
    noisy = [
        (s + noise_multiplier * clip_norm * jax.random.normal(keys[i], s.shape, jnp.float32)) / batch
        for i, s in enumerate(summed)
    ]
    return {
        "update": jax.tree_util.tree_unflatten(treedef, noisy),
        "norms": norms,
        "clipped_fraction": jnp.mean((norms > clip_norm).astype(jnp.float32)),
    }
