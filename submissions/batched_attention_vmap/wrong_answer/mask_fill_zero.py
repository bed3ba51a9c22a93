# reason: value
# hint: masked logits are set to 0, which still gives those keys the weight exp(0 - max); a masked key must get weight exactly 0.
# misreads: so the weights of a query are a softmax over the keys it may attend to: they are at least 0, exactly 0 for masked keys, and sum to 1.
import jax
import jax.numpy as jnp


def attend(q, k, v, mask):
    logits = jnp.where(mask, (q @ k.T) / jnp.sqrt(q.shape[-1]), 0.0)
    weights = jax.nn.softmax(logits, axis=-1)
    return weights @ v, weights


def attention(q, k, v, mask):
    per_head = jax.vmap(attend, in_axes=(0, 0, 0, None))
    out, weights = jax.vmap(per_head)(q, k, v, mask)
    return {"out": out, "weights": weights}
