# Heads outer, batch inner (in_axes/out_axes=1 pick the head axis), the query scaled
# before the product, and jax.nn.softmax with where=mask: masked keys get weight 0, and
# a row with no allowed key comes out as zeros.
import jax
import jax.numpy as jnp


def one_head(q, k, v, mask):
    scores = (q / jnp.sqrt(q.shape[-1])) @ jnp.swapaxes(k, -1, -2)
    weights = jax.nn.softmax(scores, axis=-1, where=mask)
    return weights @ v, weights


def attention(q, k, v, mask):
    over_batch = jax.vmap(one_head, in_axes=(0, 0, 0, 0))
    over_heads = jax.vmap(over_batch, in_axes=(1, 1, 1, None), out_axes=1)
    out, weights = over_heads(q, k, v, mask)
    return {"out": out, "weights": weights}
