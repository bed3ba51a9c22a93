# reason: value
# hint: jnp.maximum(z, 0) splits the gradient at a tie: its derivative at exactly z = 0 is 0.5, where the statement (and jax.nn.relu) says 0.
# misreads: note that `jnp.maximum(z, 0)` splits the gradient there and has derivative 0.5.
import jax
import jax.numpy as jnp


def loss(params, x, y):
    h = jnp.maximum(x @ params["layer1"]["w"] + params["layer1"]["b"], 0.0)
    logits = h @ params["layer2"]["w"] + params["layer2"]["b"]
    return -jax.nn.log_softmax(logits)[y]


def dp_sgd_step(params, x, y, clip_norm, noise_multiplier, key):
    n = x.shape[0]
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    leaves, treedef = jax.tree_util.tree_flatten(g)
    norms = jnp.sqrt(sum(jnp.sum(t.reshape(n, -1) ** 2, axis=1) for t in leaves))
    scale = 1.0 / jnp.maximum(1.0, norms / clip_norm)
    keys = jax.random.split(key, 4)
    out = [(jnp.tensordot(scale, t, axes=1) + noise_multiplier * clip_norm
            * jax.random.normal(k, t.shape[1:], jnp.float32)) / n for t, k in zip(leaves, keys)]
    return {"update": jax.tree_util.tree_unflatten(treedef, out), "norms": norms,
            "clipped_fraction": jnp.mean((norms > clip_norm).astype(jnp.float32))}
