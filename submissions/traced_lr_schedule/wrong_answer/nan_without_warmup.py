# reason: nan
# hint: min(step / warmup_steps, 1) is 0 / 0 = NaN at step 0 when warmup_steps is 0; guard the division (with no warmup the schedule starts at peak_lr).
# misreads: $W = 0$ means no warmup: the first line never applies, and the schedule starts with $\mathrm{lr}(0) = P$.
import jax.numpy as jnp


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    s = steps.astype(jnp.float32)
    warmup = jnp.asarray(warmup_steps, jnp.float32)
    decay = jnp.asarray(decay_steps, jnp.float32)
    final_lr = final_fraction * peak_lr
    # During the warmup the clipped cosine is still peak_lr, so one product covers both phases.
    ramp = jnp.minimum(s / warmup, 1.0)
    progress = jnp.clip((s - warmup) / decay, 0.0, 1.0)
    cosine = final_lr + (peak_lr - final_lr) * 0.5 * (1.0 + jnp.cos(jnp.pi * progress))
    return {"lr": (ramp * cosine).astype(jnp.float32)}
