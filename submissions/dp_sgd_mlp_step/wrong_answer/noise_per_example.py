# reason: value
# hint: every example gets its own noise draw (from its own key); DP-SGD adds noise once, to the sum, from split(key, 4).
# misreads: **Noise**, once per step (not per example), one standard normal draw per parameter entry, made exactly like this:
import jax
import jax.numpy as jnp


def loss(params, x, y):
    h = jax.nn.relu(x @ params["layer1"]["w"] + params["layer1"]["b"])
    logits = h @ params["layer2"]["w"] + params["layer2"]["b"]
    return -jax.nn.log_softmax(logits)[y]


def noisy_clipped_grad(params, xi, yi, ki, clip_norm, std):
    g = jax.grad(loss)(params, xi, yi)
    leaves, treedef = jax.tree_util.tree_flatten(g)
    norm = jnp.sqrt(sum(jnp.sum(t * t) for t in leaves))
    factor = jnp.maximum(1.0, norm / clip_norm)
    keys = jax.random.split(ki, 4)
    noisy = [t / factor + std * jax.random.normal(k, t.shape, jnp.float32) for t, k in zip(leaves, keys)]
    return jax.tree_util.tree_unflatten(treedef, noisy), norm


def dp_sgd_step(params, x, y, clip_norm, noise_multiplier, key):
    n = x.shape[0]
    example_keys = jax.random.split(key, n)
    noisy, norms = jax.vmap(noisy_clipped_grad, in_axes=(None, 0, 0, 0, None, None))(
        params, x, y, example_keys, clip_norm, noise_multiplier * clip_norm)
    update = jax.tree_util.tree_map(lambda t: jnp.mean(t, axis=0), noisy)
    return {"update": update, "norms": norms,
            "clipped_fraction": jnp.mean((norms > clip_norm).astype(jnp.float32))}
