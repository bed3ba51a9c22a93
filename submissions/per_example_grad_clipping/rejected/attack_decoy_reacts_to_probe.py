# reason: requirement
# attack: a decoy that computes the answer by hand but nudges it whenever the transform's result differs from its own (so it "reacts" to a perturbation); stopped by the differential dependence probe (the outputs must follow the perturbation exactly as the reference's do)
import jax
import jax.numpy as jnp


def loss(params, x, y):
    return 0.5 * (x @ params["w"] + params["b"] - y) ** 2


def per_example_grad_clip(params, x, y, max_norm):
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    err = x @ params["w"] + params["b"] - y
    gw, gb = err[:, None] * x, err
    # Rounding only on a normal run; large when the judge perturbs the gradients.
    drift = jnp.sum(jnp.abs(g["b"] - gb)) + jnp.sum(jnp.abs(g["w"] - gw))
    size = 1.0 + jnp.sum(jnp.abs(gb)) + jnp.sum(jnp.abs(gw))
    norms = jnp.sqrt(jnp.sum(gw ** 2, axis=1) + gb ** 2) * jnp.where(drift > 1e-3 * size, 1.01, 1.0)
    f = jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.mean(gw / f[:, None], axis=0), "b": jnp.mean(gb / f)}, "norms": norms}
