# No pytree utilities: walk the two groups and their leaves by key, with a jit-compiled helper.
import jax
import jax.numpy as jnp


@jax.jit
def _scale(total, max_norm):
    norm = jnp.sqrt(total)
    return norm, 1.0 / jnp.maximum(1.0, norm / max_norm)


def clip_by_global_norm(grads, max_norm):
    total = 0.0
    for group in grads:
        for name in grads[group]:
            total = total + jnp.sum(jnp.square(grads[group][name]))
    norm, s = _scale(total, max_norm)
    clipped = {group: {name: leaf * s for name, leaf in leaves.items()} for group, leaves in grads.items()}
    return {"clipped": clipped, "global_norm": norm}
