# reason: dtype
# hint: the bucket is returned as a float32 (picked with jnp.where from float constants); it is a length, an int32.
# misreads: All four values are JAX arrays: `loss` and the gradients float32, `bucket` int32.
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
    longest = jnp.max(jnp.minimum(lengths, L))
    bucket = jnp.where(longest <= 2, 2.0, jnp.where(longest <= 4, 4.0, 8.0))
    return {"loss": loss, "grads": grads, "bucket": bucket}
