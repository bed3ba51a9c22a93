# reason: nan
# hint: exp of the raw logits overflows float32 (inf / inf = NaN) once a logit passes about 88, and underflows to 0 / 0 below about -104; subtract each row's largest allowed logit first.
# misreads: A softmax taken literally from the formula returns NaN; the result must be finite and correct.
import jax
import jax.numpy as jnp


def attend(q, k, v, mask):
    logits = (q @ k.T) / jnp.sqrt(q.shape[-1])
    e = jnp.where(mask, jnp.exp(logits), 0.0)
    total = jnp.sum(e, axis=-1, keepdims=True)
    weights = jnp.where(jnp.any(mask, axis=-1, keepdims=True), e / total, 0.0)
    return weights @ v, weights


def attention(q, k, v, mask):
    per_head = jax.vmap(attend, in_axes=(0, 0, 0, None))
    out, weights = jax.vmap(per_head)(q, k, v, mask)
    return {"out": out, "weights": weights}
