# The four leaves packed by hand into one flat parameter vector (in tree_leaves order);
# the loss cuts it back into matrices, so vmap(grad) returns a (B, P) matrix, which is
# clipped and averaged as a whole and only cut into leaves at the end.
import jax
import jax.numpy as jnp


def dp_sgd_step(params, x, y, clip_norm, noise_multiplier, key):
    batch = x.shape[0]
    names = [("layer1", "b"), ("layer1", "w"), ("layer2", "b"), ("layer2", "w")]  # tree_leaves order
    shapes = [params[l][n].shape for l, n in names]
    sizes = [params[l][n].size for l, n in names]
    offsets = [sum(sizes[:i]) for i in range(len(sizes) + 1)]
    theta = jnp.concatenate([params[l][n].reshape(-1) for l, n in names])

    def unpack(vec):
        out = {"layer1": {}, "layer2": {}}
        for i, (l, n) in enumerate(names):
            out[l][n] = vec[offsets[i]:offsets[i + 1]].reshape(shapes[i])
        return out

    def loss(th, xi, yi):
        p = unpack(th)
        h = jax.nn.relu(xi @ p["layer1"]["w"] + p["layer1"]["b"])
        logits = h @ p["layer2"]["w"] + p["layer2"]["b"]
        return jax.nn.logsumexp(logits) - logits[yi]

    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(theta, x, y)  # (B, P)
    norms = jnp.linalg.norm(g, axis=1)
    clipped = g / jnp.maximum(1.0, norms / clip_norm)[:, None]
    keys = jax.random.split(key, 4)
    noise = jnp.concatenate([jax.random.normal(keys[i], shapes[i], jnp.float32).reshape(-1)
                             for i in range(4)])
    flat_update = (clipped.sum(axis=0) + noise_multiplier * clip_norm * noise) / batch
    return {"update": unpack(flat_update), "norms": norms,
            "clipped_fraction": jnp.mean((norms > clip_norm).astype(jnp.float32))}
