# The nested vmap returns only the attention weights of one example and head; the
# outputs are then mixed for the whole batch at once with an einsum over the keys.
import jax
import jax.numpy as jnp


def head_weights(q, k, mask):
    """q (Tq, D), k (Tk, D), mask (Tq, Tk) -> weights (Tq, Tk)."""
    scores = q @ k.T / jnp.sqrt(jnp.float32(q.shape[-1]))
    scores = jnp.where(mask, scores, -jnp.inf)
    top = jnp.max(scores, axis=-1, keepdims=True)
    top = jnp.where(jnp.isneginf(top), 0.0, top)
    e = jnp.exp(scores - top)  # exp(-inf) = 0 on masked keys
    total = e.sum(axis=-1, keepdims=True)
    return e / jnp.where(total == 0.0, 1.0, total)


def attention(q, k, v, mask):
    per_head = jax.vmap(head_weights, in_axes=(0, 0, None))
    weights = jax.vmap(per_head)(q, k, mask)  # (B, H, Tq, Tk)
    out = jnp.einsum("bhqk,bhkc->bhqc", weights, v)
    return {"out": out, "weights": weights}
