# reason: value
# hint: the decay progress is not clipped at 1, so after warmup_steps + decay_steps the cosine climbs back up; the rate must stay at the final value.
# misreads: From step $W + D$ on the rate is $F$ and stays there however large the step.
import jax.numpy as jnp


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    s = steps.astype(jnp.float32)
    warmup = jnp.asarray(warmup_steps, jnp.float32)
    decay = jnp.asarray(decay_steps, jnp.float32)
    final_lr = final_fraction * peak_lr
    warm = peak_lr * s / jnp.maximum(warmup, 1.0)
    progress = (s - warmup) / decay
    cosine = final_lr + (peak_lr - final_lr) * 0.5 * (1.0 + jnp.cos(jnp.pi * progress))
    return {"lr": jnp.where(s < warmup, warm, cosine).astype(jnp.float32)}
