# Per sequence: the SUM of its valid losses and that sum's gradient, with value_and_grad
# vmapped over the batch; the sums are then divided by the number of valid positions.
# The bucket counts how many buckets are too short.
import jax
import jax.numpy as jnp
from jax import lax


def sequence_sum(params, x_seq, t_seq, n):
    z = x_seq @ params["w"] + params["b"]
    per = jax.nn.softplus(z) - t_seq * z
    keep = lax.iota(jnp.int32, x_seq.shape[0]) < n
    return jnp.sum(jnp.where(keep, per, 0.0))


def masked_loss(params, x, targets, lengths):
    L = x.shape[1]
    n = jnp.clip(lengths, 0, L)
    sums, grads = jax.vmap(jax.value_and_grad(sequence_sum), in_axes=(None, 0, 0, 0))(params, x, targets, n)
    denom = jnp.maximum(jnp.sum(n), 1).astype(jnp.float32)
    loss = jnp.sum(sums) / denom
    grads = jax.tree_util.tree_map(lambda g: jnp.sum(g, axis=0) / denom, grads)
    buckets = jnp.array([2, 4, 8], dtype=jnp.int32)
    bucket = buckets[jnp.sum(buckets < jnp.max(n))]
    return {"loss": loss, "grads": grads, "bucket": bucket}
