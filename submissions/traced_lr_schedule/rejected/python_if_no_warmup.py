# reason: requirement
# Guards the division with a Python `if` on warmup_steps: right numbers when the
# arguments are plain numbers, but warmup_steps is traced under jax.jit, so the
# `if` cannot decide. Use jnp.where (or jnp.maximum) on the divisor instead.
import jax.numpy as jnp


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    s = steps.astype(jnp.float32)
    final_lr = final_fraction * peak_lr
    if warmup_steps > 0:
        warm = peak_lr * s / warmup_steps
    else:
        warm = jnp.full_like(s, peak_lr)
    progress = jnp.clip((s - warmup_steps) / decay_steps, 0.0, 1.0)
    cosine = final_lr + (peak_lr - final_lr) * 0.5 * (1.0 + jnp.cos(jnp.pi * progress))
    return {"lr": jnp.where(s < warmup_steps, warm, cosine).astype(jnp.float32)}
