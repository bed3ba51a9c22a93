# reason: dtype
# hint: clipped_fraction is the count of clipped examples as an integer; it is that count divided by B, as float32.
# misreads: **Clipped fraction:** the number of examples with $n_i > C$ (strictly), divided by $B$.
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
    out = [(jnp.tensordot(scale, t, axes=1) + noise_multiplier * clip_norm
            * jax.random.normal(k, t.shape[1:], jnp.float32)) / n for t, k in zip(leaves, keys)]
    update = jax.tree_util.tree_unflatten(treedef, out)
    return {"update": update, "norms": norms, "clipped_fraction": jnp.sum(norms > clip_norm)}
