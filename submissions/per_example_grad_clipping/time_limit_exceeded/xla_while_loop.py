# reason: time
# An endless lax.while_loop: XLA spins where Python signals cannot reach it.
import jax
import jax.numpy as jnp


def per_example_grad_clip(params, x, y, max_norm):
    jax.vmap(jax.grad(lambda p: jnp.sum(p)))(x)
    # In float32, c + 1 stops changing at 2**24, and c < inf stays true forever.
    return jax.lax.while_loop(lambda c: c < jnp.inf, lambda c: c + 1.0, jnp.float32(0))
