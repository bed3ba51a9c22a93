# reason: requirement
# The textbook schedule, one step at a time with Python if/elif/else on the step:
# fine eagerly, impossible when the steps are traced (and the loop grows the program).
import math

import jax.numpy as jnp


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    final_lr = final_fraction * peak_lr
    out = []
    for step in steps:
        if step < warmup_steps:
            lr = peak_lr * step / warmup_steps
        elif step < warmup_steps + decay_steps:
            progress = (step - warmup_steps) / decay_steps
            lr = final_lr + (peak_lr - final_lr) * 0.5 * (1.0 + jnp.cos(math.pi * progress))
        else:
            lr = final_lr
        out.append(jnp.asarray(lr, jnp.float32))
    return {"lr": jnp.stack(out)}
