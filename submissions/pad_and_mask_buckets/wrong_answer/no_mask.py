# reason: value
# hint: the padding is averaged in as if it were data; positions at or after a sequence's length must not count.
# misreads: The other positions are **padding**: their values in `x` and `targets` are arbitrary (anywhere in the allowed ranges, often large) and must not change any output, not even into NaN.
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
