# reason: requirement
# One vmap over the batch; the heads are handled by einsum inside. Right numbers, but
# the problem asks for the single-head function vmapped over the heads as well.
import jax
import jax.numpy as jnp


def one_example(q, k, v, mask):
    logits = jnp.einsum("hid,hjd->hij", q, k) / jnp.sqrt(q.shape[-1])
    weights = jax.nn.softmax(logits, axis=-1, where=mask[None])
    return jnp.einsum("hij,hjc->hic", weights, v), weights


def attention(q, k, v, mask):
    out, weights = jax.vmap(one_example)(q, k, v, mask)
    return {"out": out, "weights": weights}
