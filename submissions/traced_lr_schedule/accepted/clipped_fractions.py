# Two clipped fractions: how far the warmup and the decay have got, each in [0, 1].
# The decay uses cos^2(pi/2 * p), the same half cosine as (1 + cos(pi * p)) / 2.
import jax.numpy as jnp


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    s = jnp.asarray(steps, jnp.float32)
    w = jnp.float32(1.0) * warmup_steps
    d = jnp.float32(1.0) * decay_steps
    # With no warmup the ramp is "already done": fraction 1 from step 0.
    ramp = jnp.where(w > 0, jnp.clip(s / jnp.where(w > 0, w, 1.0), 0.0, 1.0), 1.0)
    p = jnp.clip((s - w) / d, 0.0, 1.0)
    shape = final_fraction + (1.0 - final_fraction) * jnp.cos(0.5 * jnp.pi * p) ** 2
    lr = peak_lr * jnp.where(s < w, ramp, shape)
    return {"lr": lr.astype(jnp.float32)}
