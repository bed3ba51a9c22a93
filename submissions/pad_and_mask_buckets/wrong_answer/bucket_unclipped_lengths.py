# reason: value
# hint: the bucket is chosen from the raw lengths; a length above L holds only L positions, so clip the lengths to L first.
# misreads: A length above `L` means the sequence was cut at `L`: all `L` positions are valid.
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
    bucket = buckets[jnp.searchsorted(buckets, jnp.max(lengths))]
    return {"loss": loss, "grads": grads, "bucket": bucket}
