# reason: requirement
# attack: one einsum over the batch and the heads inside two jax.vmap calls over axes of one element; stopped by the dependence probe's lane factors
# batched_attention_vmap: one einsum over the whole batch and all heads (what
# rejected/einsum_decoy.py does), wrapped in two vacuous jax.vmap calls over
# axes of size 1, so the "nested vmap" result IS the einsum's result.
import jax
import jax.numpy as jnp


def attention(q, k, v, mask):
    def whole_batch(_i, _j):
        logits = jnp.einsum("bhid,bhjd->bhij", q, k) / jnp.sqrt(jnp.float32(q.shape[-1]))
        m = mask[:, None]
        mx = jnp.max(jnp.where(m, logits, -jnp.inf), axis=-1, keepdims=True)
        mx = jnp.where(jnp.isfinite(mx), mx, 0.0)
        e = jnp.where(m, jnp.exp(logits - mx), 0.0)
        tot = jnp.sum(e, axis=-1, keepdims=True)
        w = e / jnp.where(tot > 0, tot, 1.0)
        return jnp.einsum("bhij,bhjc->bhic", w, v), w

    one = jnp.zeros(1)
    out, w = jax.vmap(jax.vmap(whole_batch, in_axes=(None, 0)), in_axes=(0, None))(one, one)
    return {"out": out[0, 0], "weights": w[0, 0]}
