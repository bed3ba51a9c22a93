# reason: type
# attack: return a tracer leaked out of a finished jax.grad/vmap transform; the child never encodes tracers (opaque leaf).
import jax
import jax.numpy as jnp

def _loss(params, x, y):
    err = jnp.dot(x, params["w"]) + params["b"] - y
    return 0.5 * err * err


def _solve(params, x, y, max_norm):
    grads = jax.vmap(jax.grad(_loss), in_axes=(None, 0, 0))(params, x, y)
    norms = jnp.sqrt(jnp.sum(grads["w"] ** 2, axis=1) + grads["b"] ** 2)
    scale = 1.0 / jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.mean(grads["w"] * scale[:, None], axis=0), "b": jnp.mean(grads["b"] * scale)},
            "norms": norms}

LEAKED = []


def _capture(p, xi, yi):
    LEAKED.append(p["w"])
    return _loss(p, xi, yi)


def per_example_grad_clip(params, x, y, max_norm):
    out = _solve(params, x, y, max_norm)
    jax.vmap(jax.grad(_capture), in_axes=(None, 0, 0))(params, x, y)
    out["grads"]["w"] = LEAKED[-1]
    return out
