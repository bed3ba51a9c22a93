# reason: dtype
# hint: the schedule is computed and returned in float16; the learning rates must be float32.
# misreads: where `lr[i] = lr(steps[i])`, a JAX array of dtype `float32`.
import jax.numpy as jnp


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    s = steps.astype(jnp.float16)
    warmup = jnp.asarray(warmup_steps, jnp.float16)
    decay = jnp.asarray(decay_steps, jnp.float16)
    peak = jnp.asarray(peak_lr, jnp.float16)
    final_lr = jnp.asarray(final_fraction, jnp.float16) * peak
    warm = peak * s / jnp.maximum(warmup, 1.0)
    progress = jnp.clip((s - warmup) / decay, 0.0, 1.0)
    cosine = final_lr + (peak - final_lr) * 0.5 * (1.0 + jnp.cos(jnp.pi * progress))
    return {"lr": jnp.where(s < warmup, warm, cosine)}
