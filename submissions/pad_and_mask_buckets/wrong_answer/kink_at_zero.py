# reason: value
# hint: max(z, 0) + log1p(exp(-|z|)) is differentiated piece by piece: at a logit of exactly 0 JAX takes slope 0 for max and abs, so the gradient there is -t instead of sigmoid(0) - t = 0.5 - t; use jax.nn.softplus or jnp.logaddexp.
# misreads: $l(z, t) = \operatorname{softplus}(z) - t z = \log(1 + e^z) - t z.$
import jax
import jax.numpy as jnp


def masked_loss(params, x, targets, lengths):
    B, L, D = x.shape
    positions = jnp.arange(L)
    mask = positions[None, :] < lengths[:, None]
    x = jnp.where(mask[:, :, None], x, 0.0)
    targets = jnp.where(mask, targets, 0.0)
    count = jnp.sum(jnp.clip(lengths, 0, L))

    def loss_fn(p):
        z = jnp.einsum("bld,d->bl", x, p["w"]) + p["b"]
        per = jnp.maximum(z, 0.0) - targets * z + jnp.log1p(jnp.exp(-jnp.abs(z)))
        return jnp.sum(jnp.where(mask, per, 0.0)) / jnp.maximum(count, 1).astype(jnp.float32)

    loss, grads = jax.value_and_grad(loss_fn)(params)
    buckets = jnp.array([2, 4, 8])
    longest = jnp.max(jnp.where(mask, positions[None, :] + 1, 0))
    bucket = buckets[jnp.argmax(buckets >= longest)]
    return {"loss": loss, "grads": {"w": grads["w"], "b": grads["b"]}, "bucket": bucket.astype(jnp.int32)}
