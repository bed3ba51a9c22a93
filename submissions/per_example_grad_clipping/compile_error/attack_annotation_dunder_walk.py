# reason: compile
# attack: a subclass walk to os hidden in annotations (a parameter's, a return's and a class field's); the policy visits every annotation like any other expression, so RestrictedPython rejects the '_'-prefixed attributes at compile time.
import jax
import jax.numpy as jnp


class Walk:
    found: ().__class__.__base__.__subclasses__()


def _loss(params, x, y):
    err = jnp.dot(x, params["w"]) + params["b"] - y
    return 0.5 * err * err


def per_example_grad_clip(params: ().__class__.__base__, x, y, max_norm) -> dict.__subclasses__():
    grads = jax.vmap(jax.grad(_loss), in_axes=(None, 0, 0))(params, x, y)
    norms = jnp.sqrt(jnp.sum(grads["w"] ** 2, axis=1) + grads["b"] ** 2)
    scale = 1.0 / jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.mean(grads["w"] * scale[:, None], axis=0), "b": jnp.mean(grads["b"] * scale)},
            "norms": norms}
