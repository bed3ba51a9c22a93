# reason: value
# hint: the padding is averaged in as if it were data; positions at or after a sequence's length must not count.
import jax
import jax.numpy as jnp


def loss_fn(params, x, targets):
    z = x @ params["w"] + params["b"]
    return jnp.mean(jax.nn.softplus(z) - targets * z)


def masked_loss(params, x, targets, lengths):
    L = x.shape[1]
    loss, grads = jax.value_and_grad(loss_fn)(params, x, targets)
    buckets = jnp.array([2, 4, 8], dtype=jnp.int32)
    bucket = buckets[jnp.searchsorted(buckets, jnp.max(jnp.minimum(lengths, L)))]
    return {"loss": loss, "grads": grads, "bucket": bucket}
