# reason: value
# hint: the decay ends at final_fraction itself; final_fraction is a fraction of the peak, so the final rate is final_fraction * peak_lr.
# misreads: The decay ends at the final rate $F = f P$.
import jax.numpy as jnp


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    s = steps.astype(jnp.float32)
    warmup = jnp.asarray(warmup_steps, jnp.float32)
    decay = jnp.asarray(decay_steps, jnp.float32)
    final_lr = final_fraction
    warm = peak_lr * s / jnp.maximum(warmup, 1.0)
    progress = jnp.clip((s - warmup) / decay, 0.0, 1.0)
    cosine = final_lr + (peak_lr - final_lr) * 0.5 * (1.0 + jnp.cos(jnp.pi * progress))
    return {"lr": jnp.where(s < warmup, warm, cosine).astype(jnp.float32)}
