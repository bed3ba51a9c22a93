# reason: requirement
# Handles the empty batch with a Python if on a traced value (the truth value of a
# tracer): right answers when run eagerly, but not traceable under jax.jit.
import jax
import jax.numpy as jnp


def loss_fn(params, x, targets, mask):
    z = x @ params["w"] + params["b"]
    per = jax.nn.softplus(z) - targets * z
    return jnp.sum(per * mask) / jnp.sum(mask)


def masked_loss(params, x, targets, lengths):
    L = x.shape[1]
    mask = (jnp.arange(L)[None, :] < lengths[:, None]).astype(jnp.float32)
    if jnp.sum(mask) == 0:
        zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
        loss, grads = jax.value_and_grad(lambda p: jnp.sum(p["w"]) * 0.0)(params)
        return {"loss": loss, "grads": zeros, "bucket": jnp.int32(2)}
    loss, grads = jax.value_and_grad(loss_fn)(params, x, targets, mask)
    longest = jnp.max(jnp.minimum(lengths, L))
    bucket = jnp.where(longest <= 2, 2, jnp.where(longest <= 4, 4, 8)).astype(jnp.int32)
    return {"loss": loss, "grads": grads, "bucket": bucket}
