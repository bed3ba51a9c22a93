# reason: requirement
# The whole batch with einsum and broadcasting, no vmap at all.
import jax
import jax.numpy as jnp


def attention(q, k, v, mask):
    logits = jnp.einsum("bhid,bhjd->bhij", q, k) / jnp.sqrt(q.shape[-1])
    weights = jax.nn.softmax(logits, axis=-1, where=mask[:, None])
    return {"out": jnp.einsum("bhij,bhjc->bhic", weights, v), "weights": weights}
