# reason: requirement
# The loss is masked correctly, but the bucket is found by a Python loop that compares
# the traced longest length with each bucket (a Python branch on a traced value).
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
    bucket = 8
    for b in (2, 4, 8):
        if longest <= b:
            bucket = b
            break
    return {"loss": loss, "grads": grads, "bucket": jnp.int32(bucket)}
