# reason: value
# hint: exp(logits) / sum(exp(logits)) overflows for large logits (its backward pass squares the sum, which overflows from logits of about 45: wrong gradients, then NaN); subtract the largest logit first (or use jax.nn.log_softmax).
# misreads: a softmax written as `exp(logits) / sum(exp(logits))` (the exponential of a large logit overflows; use `jax.nn.log_softmax` or subtract the maximum logit first)
import jax
import jax.numpy as jnp


def loss(params, x, y):
    h = jax.nn.relu(x @ params["layer1"]["w"] + params["layer1"]["b"])
    logits = h @ params["layer2"]["w"] + params["layer2"]["b"]
    probs = jnp.exp(logits) / jnp.sum(jnp.exp(logits))
    return -jnp.log(probs[y])


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
