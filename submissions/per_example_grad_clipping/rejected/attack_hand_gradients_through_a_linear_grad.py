# reason: requirement
# attack: hand-written per-example gradients routed through vmap(grad(p -> <p, a>)), whose gradient is a itself; stopped by the dependence probe's shift of the differentiated arguments (the gradient of a linear surrogate does not move with the point it is taken at, the loss's does)
# per_example_grad_clipping: the per-example gradients are written by hand
# (err * x, err), then passed through vmap(grad(p -> <p, a>)), whose gradient is
# just `a`: vmap of grad runs, the outputs are computed from its result, and no
# derivative of the loss is ever taken by JAX.
import jax
import jax.numpy as jnp


def per_example_grad_clip(params, x, y, max_norm):
    err = x @ params["w"] + params["b"] - y                 # hand-written
    hand = {"w": err[:, None] * x, "b": err}                # per-example gradients

    def inner(p, a):
        return jnp.vdot(p["w"], a["w"]) + p["b"] * a["b"]   # d/dp = a

    zero = {"w": jnp.zeros_like(params["w"]), "b": jnp.zeros_like(params["b"])}
    g = jax.vmap(jax.grad(inner), in_axes=(None, 0))(zero, hand)
    norms = jnp.sqrt(jnp.sum(g["w"] ** 2, axis=1) + g["b"] ** 2)
    scale = 1.0 / jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.mean(g["w"] * scale[:, None], axis=0), "b": jnp.mean(g["b"] * scale)},
            "norms": norms}
