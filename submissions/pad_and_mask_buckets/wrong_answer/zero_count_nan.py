# reason: nan
# hint: with no valid position at all the loss is 0 / 0 = NaN; divide by max(count, 1) so that an empty batch gives 0.
# misreads: When $N = 0$ (every length is 0) the loss is defined as $0$, and so is its gradient.
import jax
import jax.numpy as jnp


def loss_fn(params, x, targets, mask):
    z = x @ params["w"] + params["b"]
    per = jax.nn.softplus(z) - targets * z
    return jnp.sum(per * mask) / jnp.sum(mask)


def masked_loss(params, x, targets, lengths):
    L = x.shape[1]
    mask = (jnp.arange(L)[None, :] < lengths[:, None]).astype(jnp.float32)
    loss, grads = jax.value_and_grad(loss_fn)(params, x, targets, mask)
    buckets = jnp.array([2, 4, 8], dtype=jnp.int32)
    bucket = buckets[jnp.searchsorted(buckets, jnp.max(jnp.minimum(lengths, L)))]
    return {"loss": loss, "grads": grads, "bucket": bucket}
