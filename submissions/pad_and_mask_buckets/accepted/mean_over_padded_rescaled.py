# The masked losses are averaged over all B * L slots (padding counted as zeros), with
# w and b as separate arguments; value and gradients are rescaled by B * L / N afterwards
# to make it the mean over the valid positions.
import jax
import jax.numpy as jnp


def padded_mean(w, b, x, targets, mask):
    z = jnp.einsum("bld,d->bl", x, w) + b
    per = jax.nn.softplus(z) - targets * z
    return jnp.mean(jnp.where(mask, per, 0.0))


def masked_loss(params, x, targets, lengths):
    B, L, _ = x.shape
    valid = jnp.clip(lengths, 0, L)
    mask = jnp.arange(L)[None, :] < valid[:, None]
    value, (gw, gb) = jax.value_and_grad(padded_mean, argnums=(0, 1))(
        params["w"], params["b"], x, targets, mask)
    n = jnp.sum(valid)
    factor = jnp.where(n > 0, (B * L) / jnp.maximum(n, 1).astype(jnp.float32), 0.0)
    bucket = jnp.array([2, 4, 8], jnp.int32)[jnp.searchsorted(jnp.array([2, 4, 8]), jnp.max(valid))]
    return {"loss": value * factor, "grads": {"w": gw * factor, "b": gb * factor}, "bucket": bucket}
