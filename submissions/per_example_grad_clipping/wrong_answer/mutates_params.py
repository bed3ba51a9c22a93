# reason: params_mutated
# hint: the params dict is modified in place; build new dicts instead.
# misreads: Do not modify `params`.
import jax
import jax.numpy as jnp


def loss(params, x, y):
    return 0.5 * (x @ params["w"] + params["b"] - y) ** 2


def per_example_grad_clip(params, x, y, max_norm):
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    norms = jnp.sqrt(jnp.sum(g["w"] ** 2, axis=1) + g["b"] ** 2)
    f = jnp.maximum(1.0, norms / max_norm)
    params["w"] = jnp.mean(g["w"] / f[:, None], axis=0)
    params["b"] = jnp.mean(g["b"] / f)
    return {"grads": {"w": params["w"], "b": params["b"]}, "norms": norms}
