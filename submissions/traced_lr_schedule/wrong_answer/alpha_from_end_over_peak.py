# reason: nan
# hint: the decay's floor is computed as a fraction end / peak of the peak rate, which is 0 / 0 when peak_lr is 0; scale final_fraction by peak_lr instead of dividing by it.
# misreads: The decay ends at the final rate $F = f P$.
import jax.numpy as jnp


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    # optax's recipe: alpha = end_value / init_value, then peak * ((1 - alpha) * cos + alpha).
    s = steps.astype(jnp.float32)
    warmup = jnp.asarray(warmup_steps, jnp.float32)
    end_value = final_fraction * peak_lr
    alpha = end_value / peak_lr
    warm = peak_lr * s / jnp.maximum(warmup, 1.0)
    progress = jnp.clip((s - warmup) / jnp.asarray(decay_steps, jnp.float32), 0.0, 1.0)
    cosine = 0.5 * (1.0 + jnp.cos(jnp.pi * progress))
    decayed = peak_lr * ((1.0 - alpha) * cosine + alpha)
    return {"lr": jnp.where(s < warmup, warm, decayed).astype(jnp.float32)}
