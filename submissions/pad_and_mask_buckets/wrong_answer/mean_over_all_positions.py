# reason: value
# hint: the masked sum is divided by B * L, every padded position included; divide by the number of valid positions.
# misreads: is the mean over the valid positions of the whole batch (not a mean of per-sequence means)
import jax
import jax.numpy as jnp


def loss_fn(params, x, targets, mask):
    z = x @ params["w"] + params["b"]
    per = jax.nn.softplus(z) - targets * z
    return jnp.sum(per * mask) / mask.size


def masked_loss(params, x, targets, lengths):
    L = x.shape[1]
    mask = (jnp.arange(L)[None, :] < lengths[:, None]).astype(jnp.float32)
    loss, grads = jax.value_and_grad(loss_fn)(params, x, targets, mask)
    buckets = jnp.array([2, 4, 8], dtype=jnp.int32)
    bucket = buckets[jnp.searchsorted(buckets, jnp.max(jnp.minimum(lengths, L)))]
    return {"loss": loss, "grads": grads, "bucket": bucket}
