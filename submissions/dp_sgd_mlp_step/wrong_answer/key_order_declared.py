# reason: value
# hint: the keys go to the leaves in declaration order (w before b); keys[i] belongs to the i-th leaf of jax.tree_util.tree_leaves, which sorts the dict keys (b before w).
# misreads: Note the order: `tree_leaves` sorts dict keys, so each layer's `b` comes before its `w`.
import jax
import jax.numpy as jnp


def loss(params, x, y):
    h = jax.nn.relu(x @ params["layer1"]["w"] + params["layer1"]["b"])
    logits = h @ params["layer2"]["w"] + params["layer2"]["b"]
    return -jax.nn.log_softmax(logits)[y]


def dp_sgd_step(params, x, y, clip_norm, noise_multiplier, key):
    n = x.shape[0]
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    order = [("layer1", "w"), ("layer1", "b"), ("layer2", "w"), ("layer2", "b")]
    norms = jnp.sqrt(sum(jnp.sum(g[a][b].reshape(n, -1) ** 2, axis=1) for a, b in order))
    scale = 1.0 / jnp.maximum(1.0, norms / clip_norm)
    keys = jax.random.split(key, 4)
    update = {"layer1": {}, "layer2": {}}
    for i, (a, b) in enumerate(order):
        s = jnp.tensordot(scale, g[a][b], axes=1)
        update[a][b] = (s + noise_multiplier * clip_norm * jax.random.normal(keys[i], s.shape, jnp.float32)) / n
    return {"update": update, "norms": norms, "clipped_fraction": jnp.mean((norms > clip_norm).astype(jnp.float32))}
