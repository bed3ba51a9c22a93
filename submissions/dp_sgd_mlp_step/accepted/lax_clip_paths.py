# Clipping with lax primitives (select instead of division by a possibly zero norm), and
# noise keyed by each leaf's position in the path-sorted flattening.
import jax
import jax.numpy as jnp
from jax import lax


def nll(p, x, label):
    pre = lax.dot_general(x, p["layer1"]["w"], (((0,), (0,)), ((), ()))) + p["layer1"]["b"]
    act = lax.select(lax.gt(pre, 0.0), pre, jnp.zeros_like(pre))  # derivative 0 at exactly 0
    z = act @ p["layer2"]["w"] + p["layer2"]["b"]
    m = lax.stop_gradient(jnp.max(z))
    lse = m + jnp.log(jnp.sum(jnp.exp(z - m)))
    return lse - jnp.take(z, label)


def dp_sgd_step(params, x, y, clip_norm, noise_multiplier, key):
    b = x.shape[0]
    g = jax.vmap(jax.grad(nll), in_axes=(None, 0, 0))(params, x, y)
    sq = jax.tree.reduce(lambda a, t: a + t,
                         jax.tree.map(lambda t: jnp.sum(t * t, axis=tuple(range(1, t.ndim))), g))
    norms = jnp.sqrt(sq)
    c = jnp.asarray(clip_norm, jnp.float32)
    # scale = C / ||g|| where ||g|| > C, else 1; the select never divides by a zero norm.
    over = lax.gt(norms, c)
    safe = lax.select(over, norms, jnp.ones_like(norms))
    scale = lax.select(over, c / safe, jnp.ones_like(norms))
    path_leaves = jax.tree_util.tree_leaves_with_path(g)
    keys = jax.random.split(key, len(path_leaves))
    out = {"layer1": {}, "layer2": {}}
    for i, (path, leaf) in enumerate(path_leaves):
        layer, name = path[0].key, path[1].key
        total = jnp.tensordot(scale, leaf, axes=1)
        z = jax.random.normal(keys[i], leaf.shape[1:], jnp.float32)
        out[layer][name] = (total + noise_multiplier * clip_norm * z) / b
    frac = jnp.sum(over.astype(jnp.float32)) / b
    return {"update": out, "norms": norms, "clipped_fraction": frac}
