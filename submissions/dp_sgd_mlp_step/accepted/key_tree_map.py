# The four noise keys laid out as a pytree shaped like params, so one tree_map adds the
# noise; clipping factor min(1, C / norm) with a guarded division.
import jax
import jax.numpy as jnp


@jax.grad
def grad_one(params, x, y):
    hidden = jax.nn.relu(x @ params["layer1"]["w"] + params["layer1"]["b"])
    logits = hidden @ params["layer2"]["w"] + params["layer2"]["b"]
    logp = logits - jax.scipy.special.logsumexp(logits)
    return -jnp.take_along_axis(logp, jnp.reshape(y, (1,)), axis=0)[0]


def dp_sgd_step(params, x, y, clip_norm, noise_multiplier, key):
    batch = x.shape[0]
    per_ex = jax.vmap(grad_one, in_axes=(None, 0, 0))(params, x, y)
    norms = jnp.sqrt(jax.tree.reduce(jnp.add, jax.tree.map(
        lambda g: jnp.sum(g.reshape(batch, -1) * g.reshape(batch, -1), axis=-1), per_ex)))
    factor = jnp.minimum(1.0, clip_norm / jnp.where(norms > 0.0, norms, 1.0))
    treedef = jax.tree.structure(params)
    key_tree = jax.tree.unflatten(treedef, list(jax.random.split(key, treedef.num_leaves)))
    std = noise_multiplier * clip_norm

    def leaf_update(g, k):
        total = jnp.einsum("b,b...->...", factor, g)
        return (total + std * jax.random.normal(k, total.shape, jnp.float32)) / batch

    update = jax.tree.map(leaf_update, per_ex, key_tree)
    fraction = jnp.count_nonzero(norms > clip_norm).astype(jnp.float32) / batch
    return {"update": update, "norms": norms, "clipped_fraction": fraction}
