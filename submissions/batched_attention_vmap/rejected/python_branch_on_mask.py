# reason: requirement
# A Python `if` on the mask's values picks an unmasked fast path: both paths are right,
# but the branch needs concrete values, so the function cannot run with traced inputs.
import jax
import jax.numpy as jnp


def plain(q, k, v):
    weights = jax.nn.softmax((q @ k.T) / jnp.sqrt(q.shape[-1]), axis=-1)
    return weights @ v, weights


def masked(q, k, v, mask):
    weights = jax.nn.softmax((q @ k.T) / jnp.sqrt(q.shape[-1]), axis=-1, where=mask)
    return weights @ v, weights


def attention(q, k, v, mask):
    if bool(jnp.all(mask)):
        out, weights = jax.vmap(jax.vmap(plain))(q, k, v)
    else:
        out, weights = jax.vmap(jax.vmap(masked, in_axes=(0, 0, 0, None)))(q, k, v, mask)
    return {"out": out, "weights": weights}
