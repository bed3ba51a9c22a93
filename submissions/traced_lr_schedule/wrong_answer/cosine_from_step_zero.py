# reason: value
# hint: the cosine progress is counted from step 0 instead of from the end of the warmup; use (step - warmup_steps) / decay_steps.
# misreads: The decay starts at step $W$ with $\mathrm{lr}(W) = P$ exactly, and its last step is $W + D - 1$.
import jax.numpy as jnp


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    s = steps.astype(jnp.float32)
    warmup = jnp.asarray(warmup_steps, jnp.float32)
    decay = jnp.asarray(decay_steps, jnp.float32)
    final_lr = final_fraction * peak_lr
    warm = peak_lr * s / jnp.maximum(warmup, 1.0)
    progress = jnp.clip(s / decay, 0.0, 1.0)
    cosine = final_lr + (peak_lr - final_lr) * 0.5 * (1.0 + jnp.cos(jnp.pi * progress))
    return {"lr": jnp.where(s < warmup, warm, cosine).astype(jnp.float32)}
