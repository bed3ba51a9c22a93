# reason: value
# hint: the clipped gradients are averaged and the noise is added afterwards; the noise must be divided by B too.
# misreads: The noise is divided by $B$ as well, and it is always $B$, however many examples were clipped.
import jax
import jax.numpy as jnp


def loss(params, x, y):
    h = jax.nn.relu(x @ params["layer1"]["w"] + params["layer1"]["b"])
    logits = h @ params["layer2"]["w"] + params["layer2"]["b"]
    return -jax.nn.log_softmax(logits)[y]


def dp_sgd_step(params, x, y, clip_norm, noise_multiplier, key):
    n = x.shape[0]
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    leaves, treedef = jax.tree_util.tree_flatten(g)
    norms = jnp.sqrt(sum(jnp.sum(t.reshape(n, -1) ** 2, axis=1) for t in leaves))
    scale = 1.0 / jnp.maximum(1.0, norms / clip_norm)
    keys = jax.random.split(key, 4)
    out = [jnp.tensordot(scale, t, axes=1) / n + noise_multiplier * clip_norm
           * jax.random.normal(k, t.shape[1:], jnp.float32) for t, k in zip(leaves, keys)]
    return {"update": jax.tree_util.tree_unflatten(treedef, out), "norms": norms,
            "clipped_fraction": jnp.mean((norms > clip_norm).astype(jnp.float32))}
