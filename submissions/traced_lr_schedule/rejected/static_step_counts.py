# reason: requirement
# Marks warmup_steps and decay_steps static in an inner jax.jit: every new value
# would compile a new program, and under an outer jit the traced counts cannot
# be static at all (a tracer is not hashable).
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("warmup_steps", "decay_steps"))
def _schedule(steps, peak_lr, final_fraction, warmup_steps, decay_steps):
    s = steps.astype(jnp.float32)
    final_lr = final_fraction * peak_lr
    warm = peak_lr * s / max(warmup_steps, 1)
    progress = jnp.clip((s - warmup_steps) / decay_steps, 0.0, 1.0)
    cosine = final_lr + (peak_lr - final_lr) * 0.5 * (1.0 + jnp.cos(jnp.pi * progress))
    return jnp.where(s < warmup_steps, warm, cosine).astype(jnp.float32)


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    return {"lr": _schedule(steps, peak_lr, final_fraction, warmup_steps=warmup_steps, decay_steps=decay_steps)}
