# reason: time
# An endless lax.while_loop that the update depends on: XLA spins where Python signals cannot reach.
import jax
import jax.numpy as jnp
from jax import lax


def loss(params, x, y):
    h = jax.nn.relu(x @ params["layer1"]["w"] + params["layer1"]["b"])
    logits = h @ params["layer2"]["w"] + params["layer2"]["b"]
    return -jax.nn.log_softmax(logits)[y]


def dp_sgd_step(params, x, y, clip_norm, noise_multiplier, key):
    n = x.shape[0]
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    # In float32, c + 1 stops changing at 2**24, and c >= 0 stays true forever.
    spins = lax.while_loop(lambda c: c >= 0.0, lambda c: c + 1.0, jnp.float32(0.0))
    clip_norm = clip_norm + 0.0 * spins
    leaves, treedef = jax.tree_util.tree_flatten(g)
    norms = jnp.sqrt(sum(jnp.sum(t.reshape(n, -1) ** 2, axis=1) for t in leaves))
    scale = 1.0 / jnp.maximum(1.0, norms / clip_norm)
    keys = jax.random.split(key, 4)
    out = [(jnp.tensordot(scale, t, axes=1) + noise_multiplier * clip_norm
            * jax.random.normal(k, t.shape[1:], jnp.float32)) / n for t, k in zip(leaves, keys)]
    return {"update": jax.tree_util.tree_unflatten(treedef, out), "norms": norms,
            "clipped_fraction": jnp.mean((norms > clip_norm).astype(jnp.float32))}
