# reason: value
# hint: the softmax runs over the queries (axis -2); each query needs a distribution over the keys (the last axis).
# misreads: so the weights of a query are a softmax over the keys it may attend to
import jax
import jax.numpy as jnp


def attend(q, k, v, mask):
    logits = (q @ k.T) / jnp.sqrt(q.shape[-1])
    weights = jax.nn.softmax(logits, axis=-2, where=mask)
    return weights @ v, weights


def attention(q, k, v, mask):
    per_head = jax.vmap(attend, in_axes=(0, 0, 0, None))
    out, weights = jax.vmap(per_head)(q, k, v, mask)
    return {"out": out, "weights": weights}
