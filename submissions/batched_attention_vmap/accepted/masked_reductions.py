# A stable softmax with the masked reductions of jax.numpy (where= and initial=),
# vmapped over the batch (outer) and the heads (inner), the mask passed whole to the
# inner vmap.
import jax
import jax.numpy as jnp


def attend(q, k, v, mask):
    d = q.shape[-1]
    logits = jnp.einsum("id,jd->ij", q, k) / jnp.sqrt(d)
    top = jnp.max(logits, axis=-1, keepdims=True, where=mask, initial=-jnp.inf)
    top = jnp.where(jnp.any(mask, axis=-1, keepdims=True), top, 0.0)
    e = jnp.exp(jnp.where(mask, logits - top, -jnp.inf))
    total = jnp.sum(e, axis=-1, keepdims=True)
    weights = jnp.where(total > 0, e / jnp.maximum(total, 1.0), 0.0)
    return jnp.einsum("ij,jc->ic", weights, v), weights


def attention(q, k, v, mask):
    heads = jax.vmap(attend, in_axes=(0, 0, 0, None))
    out, weights = jax.vmap(heads)(q, k, v, mask)
    return {"out": out, "weights": weights}
