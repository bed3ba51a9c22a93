# reason: requirement
# Slices every sequence to its true length with a Python loop: int() of a traced length
# cannot run under jax.jit (and each new length would be a new shape to compile).
import jax
import jax.numpy as jnp


def loss_fn(params, xs, ts):
    total = jnp.float32(0.0)
    count = 0
    for x, t in zip(xs, ts):
        z = x @ params["w"] + params["b"]
        total = total + jnp.sum(jax.nn.softplus(z) - t * z)
        count += x.shape[0]
    return total / max(count, 1)


def masked_loss(params, x, targets, lengths):
    L = x.shape[1]
    ns = [min(int(n), L) for n in lengths]
    xs = [x[i, :n] for i, n in enumerate(ns)]
    ts = [targets[i, :n] for i, n in enumerate(ns)]
    loss, grads = jax.value_and_grad(loss_fn)(params, xs, ts)
    bucket = next(b for b in (2, 4, 8) if b >= max(ns))
    return {"loss": loss, "grads": grads, "bucket": jnp.int32(bucket)}
