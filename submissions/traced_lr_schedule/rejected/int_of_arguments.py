# reason: requirement
# Converts the step counts to Python ints (to use Python's max as the division
# guard): int() of a traced value has no answer under jax.jit.
import jax.numpy as jnp


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    warmup = int(warmup_steps)
    decay = int(decay_steps)
    s = steps.astype(jnp.float32)
    final_lr = final_fraction * peak_lr
    warm = peak_lr * s / max(warmup, 1)
    progress = jnp.clip((s - warmup) / decay, 0.0, 1.0)
    cosine = final_lr + (peak_lr - final_lr) * 0.5 * (1.0 + jnp.cos(jnp.pi * progress))
    return {"lr": jnp.where(s < warmup, warm, cosine).astype(jnp.float32)}
