# reason: requirement
# float() of the rates "to be sure they are floats": under jax.jit peak_lr and
# final_fraction are traced, and float() of a tracer fails.
import jax.numpy as jnp


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    peak = float(peak_lr)
    final_lr = float(final_fraction) * peak
    s = steps.astype(jnp.float32)
    warm = peak * s / jnp.maximum(warmup_steps, 1)
    progress = jnp.clip((s - warmup_steps) / decay_steps, 0.0, 1.0)
    cosine = final_lr + (peak - final_lr) * 0.5 * (1.0 + jnp.cos(jnp.pi * progress))
    return {"lr": jnp.where(s < warmup_steps, warm, cosine).astype(jnp.float32)}
