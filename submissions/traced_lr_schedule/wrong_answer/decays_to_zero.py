# reason: value
# hint: the cosine decays to 0 and ignores final_fraction; it must end at final_fraction * peak_lr and stay there.
# misreads: The decay ends at the final rate $F = f P$.
import jax.numpy as jnp


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    s = steps.astype(jnp.float32)
    warmup = jnp.asarray(warmup_steps, jnp.float32)
    decay = jnp.asarray(decay_steps, jnp.float32)
    warm = peak_lr * s / jnp.maximum(warmup, 1.0)
    progress = jnp.clip((s - warmup) / decay, 0.0, 1.0)
    cosine = peak_lr * 0.5 * (1.0 + jnp.cos(jnp.pi * progress))
    return {"lr": jnp.where(s < warmup, warm, cosine).astype(jnp.float32)}
