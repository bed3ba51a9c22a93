# reason: value
# hint: the mask is read the wrong way round: True means the query MAY attend to that key.
# misreads: `mask[b, i, j]` is `True` when query `i` of example `b` **may** attend to key `j`.
import jax
import jax.numpy as jnp


def attend(q, k, v, mask):
    logits = (q @ k.T) / jnp.sqrt(q.shape[-1])
    weights = jax.nn.softmax(logits, axis=-1, where=~mask)
    return weights @ v, weights


def attention(q, k, v, mask):
    per_head = jax.vmap(attend, in_axes=(0, 0, 0, None))
    out, weights = jax.vmap(per_head)(q, k, v, mask)
    return {"out": out, "weights": weights}
