# reason: value
# hint: one max for the whole score matrix: a query whose logits lie far below another query's underflows to all zeros; subtract each row's own max.
# misreads: The softmax is where the numerics bite: the logits of long or large vectors easily leave the range in which `float32`'s `exp` is finite
import jax
import jax.numpy as jnp


def attend(q, k, v, mask):
    logits = jnp.where(mask, (q @ k.T) / jnp.sqrt(q.shape[-1]), -jnp.inf)
    top = jnp.max(logits)
    e = jnp.where(mask, jnp.exp(logits - jnp.where(jnp.isfinite(top), top, 0.0)), 0.0)
    total = jnp.sum(e, axis=-1, keepdims=True)
    weights = e / jnp.where(total > 0, total, 1.0)
    return weights @ v, weights


def attention(q, k, v, mask):
    per_head = jax.vmap(attend, in_axes=(0, 0, 0, None))
    out, weights = jax.vmap(per_head)(q, k, v, mask)
    return {"out": out, "weights": weights}
