import jax
import jax.numpy as jnp


def attend(q, k, v, mask):
    """One example, one head: q (Tq, D), k (Tk, D), v (Tk, Dv), mask (Tq, Tk) bool."""
    logits = (q @ k.T) / jnp.sqrt(jnp.float32(q.shape[-1]))
    # The largest logit a query may attend to; -inf when every key is masked.
    m = jnp.max(jnp.where(mask, logits, -jnp.inf), axis=-1, keepdims=True)
    # Subtracting it keeps exp in range (the largest term is exp(0) = 1). A fully
    # masked row has no max: use 0 there, its terms are all zeroed anyway.
    m = jnp.where(jnp.isfinite(m), m, 0.0)
    e = jnp.where(mask, jnp.exp(logits - m), 0.0)
    total = jnp.sum(e, axis=-1, keepdims=True)
    # total >= 1 when some key is allowed; 0 for a fully masked row, whose weights stay 0.
    weights = e / jnp.where(total > 0, total, 1.0)
    return weights @ v, weights


# Over the heads: q, k, v carry a head axis, the mask is shared by every head.
per_head = jax.vmap(attend, in_axes=(0, 0, 0, None))
# Over the batch: every argument carries the batch axis.
per_batch = jax.vmap(per_head, in_axes=(0, 0, 0, 0))


def attention(q, k, v, mask):
    out, weights = per_batch(q, k, v, mask)
    return {"out": out, "weights": weights}
