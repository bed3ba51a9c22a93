# reason: value
# hint: the warmup uses (step + 1) / warmup_steps, so step 0 is already above 0 and the peak is reached one step early; the rate at step s is peak_lr * s / warmup_steps.
# misreads: The warmup starts at $\mathrm{lr}(0) = 0$ and rises by $P / W$ per step; it never reaches $P$ itself: $\mathrm{lr}(W - 1) = P (W - 1) / W$.
import jax.numpy as jnp


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    s = steps.astype(jnp.float32)
    warmup = jnp.asarray(warmup_steps, jnp.float32)
    decay = jnp.asarray(decay_steps, jnp.float32)
    final_lr = final_fraction * peak_lr
    warm = peak_lr * (s + 1.0) / jnp.maximum(warmup, 1.0)
    progress = jnp.clip((s - warmup) / decay, 0.0, 1.0)
    cosine = final_lr + (peak_lr - final_lr) * 0.5 * (1.0 + jnp.cos(jnp.pi * progress))
    return {"lr": jnp.where(s < warmup, warm, cosine).astype(jnp.float32)}
