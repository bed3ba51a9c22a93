import jax
import jax.numpy as jnp

BUCKETS = jnp.array([2, 4, 8], dtype=jnp.int32)


def masked_mean_loss(params, x, targets, mask):
    """Mean binary cross-entropy (with logits) over the valid positions only."""
    logits = x @ params["w"] + params["b"]                       # (B, L)
    # softplus(z) - t*z is finite for every z; padding values may be anything.
    per_position = jax.nn.softplus(logits) - targets * logits
    maskf = mask.astype(jnp.float32)
    total = jnp.sum(per_position * maskf)
    count = jnp.sum(maskf)
    # No valid position at all: 0 / 1 = 0, and the gradient is 0 too (no NaN).
    return total / jnp.maximum(count, 1.0)


def masked_loss(params, x, targets, lengths):
    L = x.shape[1]
    # Positions >= L do not exist: a length above L means "all L positions".
    valid = jnp.minimum(lengths, L)
    mask = jnp.arange(L)[None, :] < valid[:, None]               # (B, L), static shape
    loss, grads = jax.value_and_grad(masked_mean_loss)(params, x, targets, mask)
    # The smallest bucket that holds the longest sequence, computed on traced values.
    longest = jnp.max(valid)
    bucket = BUCKETS[jnp.searchsorted(BUCKETS, longest, side="left")]
    return {"loss": loss, "grads": grads, "bucket": bucket.astype(jnp.int32)}
