# reason: requirement
# attack: a Python loop of jax.grad calls inside a jax.vmap over an axis of one element, so vmap of grad is recorded; stopped by the dependence probe's lane factors (every example ran in lane 0, so all follow one factor where the reference's follow one each)
# per_example_grad_clipping: a Python loop of jax.grad calls, one per example,
# wrapped in a vacuous jax.vmap over an axis of size 1. No per-example vectorisation.
import jax
import jax.numpy as jnp


def example_loss(params, x, y):
    err = jnp.dot(x, params["w"]) + params["b"] - y
    return 0.5 * err * err


def per_example_grad_clip(params, x, y, max_norm):
    n = x.shape[0]

    def all_rows(_):
        rows = [jax.grad(example_loss)(params, x[i], y[i]) for i in range(n)]
        return {"w": jnp.stack([r["w"] for r in rows]), "b": jnp.stack([r["b"] for r in rows])}

    g = jax.vmap(all_rows)(jnp.zeros(1))
    gw, gb = g["w"][0], g["b"][0]
    norms = jnp.sqrt(jnp.sum(gw ** 2, axis=1) + gb ** 2)
    scale = 1.0 / jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.mean(gw * scale[:, None], axis=0), "b": jnp.mean(gb * scale)}, "norms": norms}
