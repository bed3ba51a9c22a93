# Three levels of vmap: batch, head, and one query at a time; the softmax is written
# as exp(logit - logsumexp) over the allowed keys, with einsum for the products.
from functools import partial

import jax
import jax.numpy as jnp


def one_query(q, k, v, allowed):
    """q (D,), k (Tk, D), v (Tk, Dv), allowed (Tk,)."""
    logits = jnp.einsum("d,jd->j", q, k) * (1.0 / jnp.sqrt(jnp.float32(q.shape[0])))
    any_allowed = jnp.any(allowed)
    safe = jnp.where(allowed, logits, -jnp.inf)
    lse = jax.nn.logsumexp(jnp.where(any_allowed, safe, 0.0))
    weights = jnp.where(allowed, jnp.exp(safe - lse), 0.0)
    return jnp.einsum("j,jc->c", weights, v), weights


@partial(jax.jit)
def attention(q, k, v, mask):
    queries = jax.vmap(one_query, in_axes=(0, None, None, 0))
    heads = jax.vmap(queries, in_axes=(0, 0, 0, None))
    batch = jax.vmap(heads)
    out, weights = batch(q, k, v, mask)
    return {"out": out, "weights": weights}
