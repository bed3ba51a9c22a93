# reason: requirement
# vmap over the batch of a function that loops over the heads in Python (each head
# vmapped over its queries): two vmaps are nested, but the traced program grows with H.
import jax
import jax.numpy as jnp


def one_query(q, k, v, allowed):
    logits = (k @ q) / jnp.sqrt(q.shape[-1])
    weights = jax.nn.softmax(logits, where=allowed)
    return weights @ v, weights


def one_example(q, k, v, mask):
    outs, ws = [], []
    for h in range(q.shape[0]):
        out, w = jax.vmap(one_query, in_axes=(0, None, None, 0))(q[h], k[h], v[h], mask)
        outs.append(out)
        ws.append(w)
    return jnp.stack(outs), jnp.stack(ws)


def attention(q, k, v, mask):
    out, weights = jax.vmap(one_example)(q, k, v, mask)
    return {"out": out, "weights": weights}
