# reason: requirement
# Traceable (jnp.where per step, no Python branching on values), but a Python
# loop over the steps: the program grows with the number of steps. One
# element-wise expression over the whole array serves every length.
import jax.numpy as jnp


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    final_lr = final_fraction * peak_lr
    out = []
    for i in range(steps.shape[0]):
        s = steps[i].astype(jnp.float32)
        warm = peak_lr * s / jnp.maximum(warmup_steps, 1)
        progress = jnp.clip((s - warmup_steps) / decay_steps, 0.0, 1.0)
        cosine = final_lr + (peak_lr - final_lr) * 0.5 * (1.0 + jnp.cos(jnp.pi * progress))
        out.append(jnp.where(s < warmup_steps, warm, cosine))
    return {"lr": jnp.stack(out).astype(jnp.float32)}
