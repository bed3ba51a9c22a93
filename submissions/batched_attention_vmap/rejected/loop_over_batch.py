# reason: requirement
# A Python loop over the batch, each example through the nested vmap as a one-element
# batch: the nesting runs and the result depends on it, but the traced program grows with B.
import jax
import jax.numpy as jnp


def attend(q, k, v, mask):
    logits = (q @ k.T) / jnp.sqrt(q.shape[-1])
    weights = jax.nn.softmax(logits, axis=-1, where=mask)
    return weights @ v, weights


def attention(q, k, v, mask):
    nested = jax.vmap(jax.vmap(attend, in_axes=(0, 0, 0, None)))
    outs, ws = [], []
    for b in range(q.shape[0]):
        out, w = nested(q[b:b + 1], k[b:b + 1], v[b:b + 1], mask[b:b + 1])
        outs.append(out)
        ws.append(w)
    return {"out": jnp.concatenate(outs), "weights": jnp.concatenate(ws)}
