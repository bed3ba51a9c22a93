# reason: value
# hint: finite asks whether the scaled gradients are finite; the scaled loss can overflow to inf while every gradient stays finite (the backward pass never uses that value), and the step must then be taken.
# misreads: `finite` is true when every entry of both scaled gradients is finite
# The overflow test looks at the scaled loss as well as the scaled gradients, "to be safe":
# a step whose scaled loss alone overflows is skipped, though its gradients are finite.
import jax
import jax.numpy as jnp


def mixed_precision_step(params, x, y, loss_scale):
    s16 = jnp.float16(loss_scale)

    def scaled_loss(p):
        w, b = p["w"].astype(jnp.float16), p["b"].astype(jnp.float16)
        loss = jnp.mean((x.astype(jnp.float16) @ w + b - y.astype(jnp.float16)) ** 2)
        return loss * s16, (loss, loss * s16)

    g, (loss, scaled) = jax.grad(scaled_loss, has_aux=True)(params)
    finite = jnp.isfinite(scaled) & jnp.isfinite(g["w"]).all() & jnp.isfinite(g["b"])
    grads = {k: jnp.where(finite, v.astype(jnp.float32) / loss_scale, jnp.zeros(v.shape, jnp.float32))
             for k, v in g.items()}
    return {"grads": grads, "loss": loss, "finite": finite}
