# reason: value
# hint: the scale uses the width of v (Dv); it must be sqrt of the width D of q and k.
# misreads: The scale is $1 / \sqrt{D}$, with $D$ the length of a query (and key) vector, whatever `Dv` is.
import jax
import jax.numpy as jnp


def attend(q, k, v, mask):
    logits = (q @ k.T) / jnp.sqrt(v.shape[-1])
    weights = jax.nn.softmax(logits, axis=-1, where=mask)
    return weights @ v, weights


def attention(q, k, v, mask):
    per_head = jax.vmap(attend, in_axes=(0, 0, 0, None))
    out, weights = jax.vmap(per_head)(q, k, v, mask)
    return {"out": out, "weights": weights}
