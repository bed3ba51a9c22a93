# reason: value
# hint: the max is taken over all keys, masked ones included: when a masked logit is far above the allowed ones, every allowed exp underflows to 0; take the max over the allowed keys only.
# misreads: The softmax is where the numerics bite: the logits of long or large vectors easily leave the range in which `float32`'s `exp` is finite
import jax
import jax.numpy as jnp


def attend(q, k, v, mask):
    logits = (q @ k.T) / jnp.sqrt(q.shape[-1])
    e = jnp.where(mask, jnp.exp(logits - jnp.max(logits, axis=-1, keepdims=True)), 0.0)
    total = jnp.sum(e, axis=-1, keepdims=True)
    weights = e / jnp.where(total > 0, total, 1.0)
    return weights @ v, weights


def attention(q, k, v, mask):
    per_head = jax.vmap(attend, in_axes=(0, 0, 0, None))
    out, weights = jax.vmap(per_head)(q, k, v, mask)
    return {"out": out, "weights": weights}
