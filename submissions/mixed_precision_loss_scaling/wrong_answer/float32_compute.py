# reason: value
# hint: the forward and backward passes must run in float16 (cast params, x and y first); in float32 nothing overflows, so the overflow rule never fires.
# misreads: Cast `w`, `b`, `x` and `y` to `float16` (`.astype(jnp.float16)`).
import jax
import jax.numpy as jnp


def mixed_precision_step(params, x, y, loss_scale):
    def scaled_loss(p):
        loss = jnp.mean((x @ p["w"] + p["b"] - y) ** 2)
        return loss * loss_scale, loss

    g, loss = jax.grad(scaled_loss, has_aux=True)(params)
    finite = jnp.logical_and(jnp.all(jnp.isfinite(g["w"])), jnp.isfinite(g["b"]))
    grads = {k: jnp.where(finite, v / loss_scale, 0.0) for k, v in g.items()}
    return {"grads": grads, "loss": loss.astype(jnp.float16), "finite": finite}
