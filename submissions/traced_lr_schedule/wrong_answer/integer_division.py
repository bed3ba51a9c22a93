# reason: value
# hint: steps // warmup_steps is integer (floor) division, 0 for every warmup step; divide as floats.
# misreads: The warmup starts at $\mathrm{lr}(0) = 0$ and rises by $P / W$ per step
import jax.numpy as jnp


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    final_lr = final_fraction * peak_lr
    safe_warmup = jnp.maximum(warmup_steps, 1)
    warm = peak_lr * (steps // safe_warmup)
    progress = jnp.clip((steps - warmup_steps) / decay_steps, 0.0, 1.0)
    cosine = final_lr + (peak_lr - final_lr) * 0.5 * (1.0 + jnp.cos(jnp.pi * progress))
    return {"lr": jnp.where(steps < warmup_steps, warm, cosine).astype(jnp.float32)}
