# reason: nan
# hint: with -inf for the masked logits, a query whose keys are all masked computes -inf - (-inf) = NaN; such a row must give zero weights and a zero output.
# misreads: **A fully masked query** (every `mask[b, i, j]` is `False` for that `i`) has no distribution to take: its weights are all `0.0` and its output row is all `0.0`. Never NaN, never uniform weights.
import jax
import jax.numpy as jnp


def attend(q, k, v, mask):
    logits = jnp.where(mask, (q @ k.T) / jnp.sqrt(q.shape[-1]), -jnp.inf)
    weights = jax.nn.softmax(logits, axis=-1)
    return weights @ v, weights


def attention(q, k, v, mask):
    per_head = jax.vmap(attend, in_axes=(0, 0, 0, None))
    out, weights = jax.vmap(per_head)(q, k, v, mask)
    return {"out": out, "weights": weights}
