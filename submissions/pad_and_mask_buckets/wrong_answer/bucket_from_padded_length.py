# reason: value
# hint: the bucket is chosen from the padded length L (a static shape) instead of the longest sequence in the batch.
# misreads: `bucket` is the smallest of the bucket lengths **2, 4, 8** that is at least the longest valid length $\max_b n_b$
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
    bucket = jnp.int32(next(b for b in (2, 4, 8) if b >= L))
    return {"loss": loss, "grads": grads, "bucket": bucket}
