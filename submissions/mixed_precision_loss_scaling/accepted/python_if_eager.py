# A Python `if` on the finiteness flag fails under jax.jit (a traced bool); the judge
# then reruns the function eagerly, where the flag is concrete, and it passes.
import jax
import jax.numpy as jnp


def mixed_precision_step(params, x, y, loss_scale):
    def scaled_loss(p):
        pred = x.astype(jnp.float16) @ p["w"].astype(jnp.float16) + p["b"].astype(jnp.float16)
        loss = jnp.mean((pred - y.astype(jnp.float16)) ** 2)
        return loss * jnp.float16(loss_scale), loss

    g, loss = jax.grad(scaled_loss, has_aux=True)(params)
    finite = bool(jnp.isfinite(g["w"]).all() and jnp.isfinite(g["b"]))
    if finite:
        grads = {k: v.astype(jnp.float32) / loss_scale for k, v in g.items()}
    else:
        grads = {k: jnp.zeros(v.shape, jnp.float32) for k, v in g.items()}
    return {"grads": grads, "loss": loss, "finite": jnp.asarray(finite)}
