# reason: requirement
# Correct numbers, but built on jax.value_and_grad: this problem names jax.grad,
# and the judge matches the transform by name.
import jax
import jax.numpy as jnp

F16 = jnp.float16


def mixed_precision_step(params, x, y, loss_scale):
    def scaled_loss(p):
        pred = x.astype(F16) @ p["w"].astype(F16) + p["b"].astype(F16)
        loss = jnp.mean((pred - y.astype(F16)) ** 2)
        return loss * jnp.asarray(loss_scale, F16), loss

    (_, loss), g = jax.value_and_grad(scaled_loss, has_aux=True)(params)
    finite = jnp.logical_and(jnp.all(jnp.isfinite(g["w"])), jnp.isfinite(g["b"]))
    grads = {k: jnp.where(finite, v.astype(jnp.float32) / loss_scale, 0.0) for k, v in g.items()}
    return {"grads": grads, "loss": loss, "finite": finite}
