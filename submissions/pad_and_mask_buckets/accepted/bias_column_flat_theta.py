# The bias folded into the weights: a column of ones is appended to the features and
# theta = [w, b] is one vector; value_and_grad of theta, then the gradient is split.
import jax
import jax.numpy as jnp


def masked_loss(params, x, targets, lengths):
    B, L, D = x.shape
    mask = jnp.arange(L)[None, :] < lengths[:, None]
    x1 = jnp.concatenate([x, jnp.ones((B, L, 1), x.dtype)], axis=-1)  # (B, L, D + 1)
    theta = jnp.concatenate([params["w"], params["b"][None]])
    count = jnp.sum(mask).astype(jnp.float32)

    def loss_fn(th):
        z = x1 @ th
        per = jax.nn.softplus(z) - targets * z
        return jnp.sum(jnp.where(mask, per, 0.0)) / jnp.maximum(count, 1.0)

    loss, g = jax.value_and_grad(loss_fn)(theta)
    longest = jnp.max(jnp.minimum(lengths, L))
    bucket = jnp.select([longest <= 2, longest <= 4], [2, 4], 8).astype(jnp.int32)
    return {"loss": loss, "grads": {"w": g[:D], "b": g[D]}, "bucket": bucket}
