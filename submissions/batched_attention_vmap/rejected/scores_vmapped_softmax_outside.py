# reason: requirement
# The right numbers, but the statement asks for the whole attention of one example and
# head inside the mapped function; a softmax over mapped logits does not follow the
# probe's lane factors.
# Only the scaled scores of one example and head are vmapped (batch, then heads); the
# masked, stabilised softmax and the mix with the values run on the whole (B, H, Tq, Tk)
# array afterwards.
import jax
import jax.numpy as jnp


def head_scores(q, k):
    """q (Tq, D), k (Tk, D) -> scaled scores (Tq, Tk)."""
    return jnp.einsum("qd,kd->qk", q, k) / jnp.sqrt(jnp.float32(q.shape[-1]))


def attention(q, k, v, mask):
    scores = jax.vmap(jax.vmap(head_scores))(q, k)  # (B, H, Tq, Tk)
    allowed = mask[:, None, :, :]  # the same mask for every head
    weights = jax.nn.softmax(scores, axis=-1, where=allowed)
    weights = jnp.where(allowed, weights, 0.0)
    out = jnp.einsum("bhqk,bhkc->bhqc", weights, v)
    return {"out": out, "weights": weights}
