import jax
import jax.numpy as jnp


def mixed_precision_step(params, x, y, loss_scale):
    half = jnp.float16

    def scaled_loss(p):
        # float32 master weights and data, cast to float16 inside the differentiated
        # function: the forward and the backward pass both run in float16.
        w, b = p["w"].astype(half), p["b"].astype(half)
        pred = x.astype(half) @ w + b
        loss = jnp.mean((pred - y.astype(half)) ** 2)
        return loss * jnp.asarray(loss_scale, dtype=half), loss

    # Gradient with respect to float32 params: float32 arrays holding the float16
    # values of the scaled gradient (the casts' transposes convert them back).
    scaled, loss = jax.grad(scaled_loss, has_aux=True)(params)
    leaves = jax.tree_util.tree_leaves(scaled)
    finite = jnp.all(jnp.stack([jnp.all(jnp.isfinite(g)) for g in leaves]))
    grads = jax.tree_util.tree_map(
        lambda g: jnp.where(finite, g.astype(jnp.float32) / loss_scale, jnp.zeros_like(g, dtype=jnp.float32)),
        scaled)
    return {"grads": grads, "loss": loss, "finite": finite}
