import jax.numpy as jnp


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    # Every argument is traced (warmup_steps and decay_steps too): no Python `if`
    # on them, only element-wise array operations.
    s = steps.astype(jnp.float32)
    warmup = jnp.asarray(warmup_steps, jnp.float32)
    decay = jnp.asarray(decay_steps, jnp.float32)
    final_lr = final_fraction * peak_lr

    # Linear warmup from 0 to peak_lr. jnp.maximum keeps the division finite when
    # warmup_steps == 0 (then no step is in the warmup and the value is never used).
    warm = peak_lr * s / jnp.maximum(warmup, 1.0)

    # Cosine decay from peak_lr to final_lr, progress clipped to [0, 1]: the value
    # stays at final_lr once the decay is over.
    progress = jnp.clip((s - warmup) / decay, 0.0, 1.0)
    cosine = final_lr + (peak_lr - final_lr) * 0.5 * (1.0 + jnp.cos(jnp.pi * progress))

    lr = jnp.where(s < warmup, warm, cosine)
    return {"lr": lr.astype(jnp.float32)}
