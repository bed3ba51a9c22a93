# reason: value
# hint: the max is taken per key over the queries (axis -2); softmax tolerates only a constant per row, so subtract each query's max over its keys.
# misreads: so the weights of a query are a softmax over the keys it may attend to
import jax
import jax.numpy as jnp


def attend(q, k, v, mask):
    logits = jnp.where(mask, (q @ k.T) / jnp.sqrt(q.shape[-1]), -jnp.inf)
    top = jnp.max(logits, axis=-2, keepdims=True)
    e = jnp.where(mask, jnp.exp(logits - jnp.where(jnp.isfinite(top), top, 0.0)), 0.0)
    total = jnp.sum(e, axis=-1, keepdims=True)
    weights = e / jnp.where(total > 0, total, 1.0)
    return weights @ v, weights


def attention(q, k, v, mask):
    per_head = jax.vmap(attend, in_axes=(0, 0, 0, None))
    out, weights = jax.vmap(per_head)(q, k, v, mask)
    return {"out": out, "weights": weights}
