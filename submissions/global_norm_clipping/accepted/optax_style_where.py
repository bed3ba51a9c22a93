# optax's formulation: keep the gradients when the norm is below max_norm, else g / norm * max_norm.
# jnp.where picks g on a zero pytree, so the 0/0 in the branch not taken never reaches the output.
import jax
import jax.numpy as jnp


def clip_by_global_norm(grads, max_norm):
    sq = jax.tree.reduce(lambda acc, g: acc + jnp.sum(g * g), grads, initializer=jnp.float32(0.0))
    g_norm = jnp.sqrt(sq)
    trigger = g_norm < max_norm
    clipped = jax.tree.map(lambda g: jnp.where(trigger, g, (g / g_norm) * max_norm), grads)
    return {"clipped": clipped, "global_norm": g_norm}
