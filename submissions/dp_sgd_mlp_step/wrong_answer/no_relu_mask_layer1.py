# reason: value
# hint: the first layer's gradient x_i (W2 d_i)^T leaves out the ReLU mask; the error passes only through hidden units that were active.
# misreads: The ReLU's derivative at exactly `0` is **0**, as `jax.nn.relu` has it: a hidden unit whose pre-activation is exactly zero passes no error back.
import jax
import jax.numpy as jnp


def loss(params, x, y):
    h = jax.nn.relu(x @ params["layer1"]["w"] + params["layer1"]["b"])
    logits = h @ params["layer2"]["w"] + params["layer2"]["b"]
    return -jax.nn.log_softmax(logits)[y]


def dp_sgd_step(params, x, y, clip_norm, noise_multiplier, key):
    n = x.shape[0]
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    # layer2's bias gradient is d loss / d logits; reuse it for a hand-made first layer
    d_logits = g["layer2"]["b"]                                  # (B, 5)
    d_hidden = d_logits @ params["layer2"]["w"].T                # (B, H), ReLU mask forgotten
    g = {"layer1": {"w": jnp.einsum("bi,bh->bih", x, d_hidden), "b": d_hidden}, "layer2": g["layer2"]}
    leaves, treedef = jax.tree_util.tree_flatten(g)
    norms = jnp.sqrt(sum(jnp.sum(t.reshape(n, -1) ** 2, axis=1) for t in leaves))
    scale = 1.0 / jnp.maximum(1.0, norms / clip_norm)
    keys = jax.random.split(key, 4)
    out = [(jnp.tensordot(scale, t, axes=1) + noise_multiplier * clip_norm
            * jax.random.normal(k, t.shape[1:], jnp.float32)) / n for t, k in zip(leaves, keys)]
    return {"update": jax.tree_util.tree_unflatten(treedef, out), "norms": norms,
            "clipped_fraction": jnp.mean((norms > clip_norm).astype(jnp.float32))}
