# The bias appended to the weights as one float32 vector [w, b]; the float16 gradient of
# that vector is tested and unscaled as a whole, then split into w and b.
import jax
import jax.numpy as jnp


def mixed_precision_step(params, x, y, loss_scale):
    d = params["w"].shape[0]
    theta = jnp.concatenate([params["w"], params["b"][None]])  # (D + 1,) float32

    def scaled_loss(th):
        t16 = th.astype(jnp.float16)
        pred = x.astype(jnp.float16) @ t16[:d] + t16[d]
        loss = jnp.mean((pred - y.astype(jnp.float16)) ** 2)
        return loss * jnp.asarray(loss_scale, jnp.float16), loss

    g, loss = jax.grad(scaled_loss, has_aux=True)(theta)
    finite = jnp.all(jnp.isfinite(g))
    flat = jnp.where(finite, g.astype(jnp.float32) / loss_scale, 0.0)
    return {"grads": {"w": flat[:d], "b": flat[d]}, "loss": loss, "finite": finite}
