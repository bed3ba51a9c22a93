# reason: nan
# hint: -t*log(sigmoid(z)) - (1-t)*log(1 - sigmoid(z)) gives inf or NaN once sigmoid rounds to 0 or 1, and multiplying by the mask afterwards cannot undo a NaN (0 * NaN = NaN).
# misreads: The other positions are **padding**: their values in `x` and `targets` are arbitrary (anywhere in the allowed ranges, often large) and must not change any output, not even into NaN.
import jax
import jax.numpy as jnp


def loss_fn(params, x, targets, mask):
    z = x @ params["w"] + params["b"]
    p = jax.nn.sigmoid(z)
    per = -targets * jnp.log(p) - (1.0 - targets) * jnp.log(1.0 - p)
    return jnp.sum(per * mask) / jnp.maximum(jnp.sum(mask), 1.0)


def masked_loss(params, x, targets, lengths):
    L = x.shape[1]
    mask = (jnp.arange(L)[None, :] < lengths[:, None]).astype(jnp.float32)
    loss, grads = jax.value_and_grad(loss_fn)(params, x, targets, mask)
    buckets = jnp.array([2, 4, 8], dtype=jnp.int32)
    bucket = buckets[jnp.searchsorted(buckets, jnp.max(jnp.minimum(lengths, L)))]
    return {"loss": loss, "grads": grads, "bucket": bucket}
