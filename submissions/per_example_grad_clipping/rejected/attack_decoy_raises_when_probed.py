# reason: requirement
# attack: a decoy that cannot be jitted (so the probe runs as a second module) and raises when the transform's result is perturbed; "the outcome changed" used to count as depending on it; stopped by the differential probe (a probe that raises fails the requirement)
import jax
import jax.numpy as jnp


def loss(params, x, y):
    return 0.5 * (x @ params["w"] + params["b"] - y) ** 2


def per_example_grad_clip(params, x, y, max_norm):
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    err = x @ params["w"] + params["b"] - y
    gw, gb = err[:, None] * x, err
    if float(jnp.sum(jnp.abs(g["b"] - gb))) > 1e-3 * (1.0 + float(jnp.sum(jnp.abs(gb)))):
        raise ValueError("perturbed")
    norms = jnp.sqrt(jnp.sum(gw ** 2, axis=1) + gb ** 2)
    f = jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.mean(gw / f[:, None], axis=0), "b": jnp.mean(gb / f)}, "norms": norms}
