# reason: value
# hint: cos(pi * progress) runs from 1 to -1, so it must be rescaled to (1 + cos(pi * progress)) / 2 before it weighs peak_lr - final; otherwise the rate falls below the final value.
# misreads: $F + (P - F) \, \dfrac{1 + \cos(\pi (s - W) / D)}{2}$
import jax.numpy as jnp


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    s = steps.astype(jnp.float32)
    warmup = jnp.asarray(warmup_steps, jnp.float32)
    decay = jnp.asarray(decay_steps, jnp.float32)
    final_lr = final_fraction * peak_lr
    warm = peak_lr * s / jnp.maximum(warmup, 1.0)
    progress = jnp.clip((s - warmup) / decay, 0.0, 1.0)
    cosine = final_lr + (peak_lr - final_lr) * jnp.cos(jnp.pi * progress)
    return {"lr": jnp.where(s < warmup, warm, cosine).astype(jnp.float32)}
