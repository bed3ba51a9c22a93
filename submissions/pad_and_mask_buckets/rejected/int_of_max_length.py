# reason: requirement
# Cuts the batch to its longest sequence with int(lengths.max()): a Python number taken
# from a traced value, so the function cannot be traced once for every set of lengths.
import jax
import jax.numpy as jnp


def loss_fn(params, x, targets, mask):
    z = x @ params["w"] + params["b"]
    per = jax.nn.softplus(z) - targets * z
    return jnp.sum(per * mask) / jnp.maximum(jnp.sum(mask), 1.0)


def masked_loss(params, x, targets, lengths):
    L = x.shape[1]
    longest = int(jnp.minimum(jnp.max(lengths), L))
    x, targets = x[:, :longest], targets[:, :longest]
    mask = (jnp.arange(longest)[None, :] < lengths[:, None]).astype(jnp.float32)
    loss, grads = jax.value_and_grad(loss_fn)(params, x, targets, mask)
    bucket = 2 if longest <= 2 else 4 if longest <= 4 else 8
    return {"loss": loss, "grads": grads, "bucket": jnp.int32(bucket)}
