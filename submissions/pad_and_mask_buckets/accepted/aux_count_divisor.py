# value_and_grad of the summed loss, the number of valid positions carried out as aux
# (has_aux=True); loss and gradients are divided by it afterwards.
import jax
import jax.numpy as jnp

BUCKETS = jnp.array([2, 4, 8], dtype=jnp.int32)


def summed_loss(params, x, targets, mask):
    logits = x @ params["w"] + params["b"]
    per_position = jax.nn.softplus(logits) - targets * logits
    maskf = mask.astype(jnp.float32)
    return jnp.sum(per_position * maskf), jnp.sum(maskf)


def masked_loss(params, x, targets, lengths):
    L = x.shape[1]
    valid = jnp.minimum(lengths, L)
    mask = jnp.arange(L)[None, :] < valid[:, None]
    (total, count), g = jax.value_and_grad(summed_loss, has_aux=True)(params, x, targets, mask)
    n = jnp.maximum(count, 1.0)
    grads = jax.tree_util.tree_map(lambda t: t / n, g)
    bucket = BUCKETS[jnp.searchsorted(BUCKETS, jnp.max(valid), side="left")]
    return {"loss": total / n, "grads": grads, "bucket": bucket.astype(jnp.int32)}
