# reason: value
# hint: the loss is divided by sum(lengths), but a length above L still has only L positions; count the valid positions (clip the lengths to L).
# misreads: A length above `L` means the sequence was cut at `L`: all `L` positions are valid.
import jax
import jax.numpy as jnp


def loss_fn(params, x, targets, mask, count):
    z = x @ params["w"] + params["b"]
    per = jax.nn.softplus(z) - targets * z
    return jnp.sum(per * mask) / count


def masked_loss(params, x, targets, lengths):
    L = x.shape[1]
    mask = (jnp.arange(L)[None, :] < lengths[:, None]).astype(jnp.float32)
    count = jnp.maximum(jnp.sum(lengths), 1).astype(jnp.float32)
    loss, grads = jax.value_and_grad(loss_fn)(params, x, targets, mask, count)
    buckets = jnp.array([2, 4, 8], dtype=jnp.int32)
    bucket = buckets[jnp.searchsorted(buckets, jnp.max(jnp.minimum(lengths, L)))]
    return {"loss": loss, "grads": grads, "bucket": bucket}
