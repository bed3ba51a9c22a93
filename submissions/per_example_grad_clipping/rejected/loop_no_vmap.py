# reason: requirement
# A Python loop of per-example grads: correct numbers, but jax.vmap is required.
import jax
import jax.numpy as jnp


def loss(params, x, y):
    return 0.5 * (x @ params["w"] + params["b"] - y) ** 2


def per_example_grad_clip(params, x, y, max_norm):
    gws, gbs, norms = [], [], []
    for i in range(x.shape[0]):
        g = jax.grad(loss)(params, x[i], y[i])
        n = jnp.sqrt(jnp.sum(g["w"] ** 2) + g["b"] ** 2)
        f = jnp.maximum(1.0, n / max_norm)
        gws.append(g["w"] / f)
        gbs.append(g["b"] / f)
        norms.append(n)
    return {"grads": {"w": jnp.mean(jnp.stack(gws), axis=0), "b": jnp.mean(jnp.stack(gbs))},
            "norms": jnp.stack(norms)}
