# reason: value
# hint: the cosine's argument lacks the factor pi: cos(progress) only falls from 1 to cos(1), so the rate never reaches the final value.
# misreads: $F + (P - F) \, \dfrac{1 + \cos(\pi (s - W) / D)}{2}$
import jax.numpy as jnp


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    s = steps.astype(jnp.float32)
    warmup = jnp.asarray(warmup_steps, jnp.float32)
    decay = jnp.asarray(decay_steps, jnp.float32)
    final_lr = final_fraction * peak_lr
    warm = peak_lr * s / jnp.maximum(warmup, 1.0)
    progress = jnp.clip((s - warmup) / decay, 0.0, 1.0)
    cosine = final_lr + (peak_lr - final_lr) * 0.5 * (1.0 + jnp.cos(progress))
    return {"lr": jnp.where(s < warmup, warm, cosine).astype(jnp.float32)}
