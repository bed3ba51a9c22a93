# reason: value
# hint: each sequence is averaged first and the averages are averaged: short sequences then weigh as much as long ones; average over all valid positions at once.
# misreads: is the mean over the valid positions of the whole batch (not a mean of per-sequence means)
import jax
import jax.numpy as jnp


def loss_fn(params, x, targets, mask):
    z = x @ params["w"] + params["b"]
    per = jax.nn.softplus(z) - targets * z
    n = jnp.sum(mask, axis=1)
    seq_means = jnp.sum(per * mask, axis=1) / jnp.maximum(n, 1.0)
    nonempty = (n > 0).astype(jnp.float32)
    return jnp.sum(seq_means * nonempty) / jnp.maximum(jnp.sum(nonempty), 1.0)


def masked_loss(params, x, targets, lengths):
    L = x.shape[1]
    mask = (jnp.arange(L)[None, :] < lengths[:, None]).astype(jnp.float32)
    loss, grads = jax.value_and_grad(loss_fn)(params, x, targets, mask)
    buckets = jnp.array([2, 4, 8], dtype=jnp.int32)
    bucket = buckets[jnp.searchsorted(buckets, jnp.max(jnp.minimum(lengths, L)))]
    return {"loss": loss, "grads": grads, "bucket": bucket}
