# reason: value
# hint: the bias entry is left out of the gradient norm; the norm runs over all D + 1 entries.
# misreads: $\mathrm{norm}_n = \lVert g_n \rVert_2$, the L2 norm of $g_n$ over all $D + 1$ entries together: the $D$ weight entries *and* the bias entry.
import jax
import jax.numpy as jnp


def loss(params, x, y):
    return 0.5 * (x @ params["w"] + params["b"] - y) ** 2


def per_example_grad_clip(params, x, y, max_norm):
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    norms = jnp.linalg.norm(g["w"], axis=1)
    f = jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.mean(g["w"] / f[:, None], axis=0), "b": jnp.mean(g["b"] / f)}, "norms": norms}
