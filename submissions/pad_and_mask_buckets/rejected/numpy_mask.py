# reason: requirement
# Builds the mask with NumPy from the lengths: np.asarray of a traced array fails under
# jax.jit, so this runs only eagerly.
import jax
import jax.numpy as jnp
import numpy as np


def loss_fn(params, x, targets, mask):
    z = x @ params["w"] + params["b"]
    per = jax.nn.softplus(z) - targets * z
    return jnp.sum(per * mask) / jnp.maximum(jnp.sum(mask), 1.0)


def masked_loss(params, x, targets, lengths):
    L = x.shape[1]
    n = np.minimum(np.asarray(lengths), L)
    mask = (np.arange(L)[None, :] < n[:, None]).astype(np.float32)
    loss, grads = jax.value_and_grad(loss_fn)(params, x, targets, jnp.asarray(mask))
    buckets = jnp.array([2, 4, 8], dtype=jnp.int32)
    bucket = buckets[jnp.searchsorted(buckets, jnp.max(n))]
    return {"loss": loss, "grads": grads, "bucket": bucket}
