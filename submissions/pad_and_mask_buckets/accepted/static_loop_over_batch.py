# A Python loop over the batch is fine here: B is part of the shape, so the loop unrolls
# the same way for every set of lengths. What the loop must not do is look at a length's
# VALUE in Python. The bucket is picked with nested jnp.where, smallest first.
import jax
import jax.numpy as jnp


def loss_fn(params, x, targets, lengths):
    B, L, _ = x.shape
    total = jnp.float32(0.0)
    count = jnp.float32(0.0)
    for i in range(B):
        z = jnp.sum(x[i] * params["w"], axis=-1) + params["b"]
        per = jnp.logaddexp(0.0, z) - targets[i] * z
        keep = (jnp.arange(L) < lengths[i]).astype(jnp.float32)
        total = total + jnp.sum(per * keep)
        count = count + jnp.sum(keep)
    safe = jnp.where(count > 0, count, 1.0)
    return total / safe


def masked_loss(params, x, targets, lengths):
    L = x.shape[1]
    loss, grads = jax.value_and_grad(loss_fn)(params, x, targets, lengths)
    longest = jnp.max(jnp.minimum(lengths, L))
    bucket = jnp.where(longest <= 2, 2, jnp.where(longest <= 4, 4, 8)).astype(jnp.int32)
    return {"loss": loss, "grads": grads, "bucket": bucket}
