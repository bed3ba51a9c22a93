# reason: exception
# Indexes grads with the leaf names at the top level (grads["w"]), but they sit one level down (grads["dense"]["w"]): KeyError.
import jax.numpy as jnp


def clip_by_global_norm(grads, max_norm):
    sq = jnp.sum(grads["w"] ** 2) + jnp.sum(grads["b"] ** 2)
    norm = jnp.sqrt(sq)
    scale = max_norm / jnp.maximum(norm, max_norm)
    return {"clipped": {k: v * scale for k, v in grads.items()}, "global_norm": norm}
