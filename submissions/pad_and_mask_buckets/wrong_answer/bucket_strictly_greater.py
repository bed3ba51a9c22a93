# reason: value
# hint: the bucket is the smallest one strictly longer than the longest sequence (side="right"); a sequence of exactly a bucket's length fits that bucket.
# misreads: `bucket` is the smallest of the bucket lengths **2, 4, 8** that is at least the longest valid length $\max_b n_b$ (so `2` when every length is 0 or 1, and `4` for a longest length of exactly 4).
import jax
import jax.numpy as jnp


def loss_fn(params, x, targets, mask):
    z = x @ params["w"] + params["b"]
    per = jax.nn.softplus(z) - targets * z
    return jnp.sum(per * mask) / jnp.maximum(jnp.sum(mask), 1.0)


def masked_loss(params, x, targets, lengths):
    L = x.shape[1]
    mask = (jnp.arange(L)[None, :] < lengths[:, None]).astype(jnp.float32)
    loss, grads = jax.value_and_grad(loss_fn)(params, x, targets, mask)
    buckets = jnp.array([2, 4, 8], dtype=jnp.int32)
    bucket = buckets[jnp.searchsorted(buckets, jnp.max(jnp.minimum(lengths, L)), side="right")]
    return {"loss": loss, "grads": grads, "bucket": bucket}
