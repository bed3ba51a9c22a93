# reason: nan
# hint: log(1 + exp(z)) overflows to inf once a logit passes about 88 (logits reach +-310 here), so the loss or its gradient becomes inf or NaN; use jax.nn.softplus or jnp.logaddexp(0, z).
# misreads: Every value of `x`, `params["w"]` and `params["b"]` lies in `[-10, 10]` (so a logit can reach about `±310`, padding included)
import jax
import jax.numpy as jnp


def loss_fn(params, x, targets, mask):
    z = x @ params["w"] + params["b"]
    per = jnp.log(1.0 + jnp.exp(z)) - targets * z
    per = jnp.where(mask, per, 0.0)
    return jnp.sum(per) / jnp.maximum(jnp.sum(mask), 1)


def masked_loss(params, x, targets, lengths):
    L = x.shape[1]
    mask = jnp.arange(L)[None, :] < lengths[:, None]
    loss, grads = jax.value_and_grad(loss_fn)(params, x, targets, mask)
    buckets = jnp.array([2, 4, 8], dtype=jnp.int32)
    bucket = buckets[jnp.searchsorted(buckets, jnp.max(jnp.minimum(lengths, L)))]
    return {"loss": loss, "grads": grads, "bucket": bucket}
