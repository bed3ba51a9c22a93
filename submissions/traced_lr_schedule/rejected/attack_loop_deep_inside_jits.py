# reason: requirement
# attack: a Python loop over the steps hidden 22 jax.jit levels deep; stopped by counting sub-programs however deep they are nested
import jax
import jax.numpy as jnp


def loop(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    final_lr = final_fraction * peak_lr
    out = []
    for i in range(steps.shape[0]):
        s = steps[i].astype(jnp.float32)
        warm = peak_lr * s / jnp.maximum(warmup_steps, 1)
        progress = jnp.clip((s - warmup_steps) / decay_steps, 0.0, 1.0)
        cosine = final_lr + (peak_lr - final_lr) * 0.5 * (1.0 + jnp.cos(jnp.pi * progress))
        out.append(jnp.where(s < warmup_steps, warm, cosine))
    return jnp.stack(out).astype(jnp.float32)


def nest(f, k):
    for _ in range(k):
        f = (lambda g: jax.jit(lambda *a: g(*a)))(f)
    return f


deep = nest(loop, 22)


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    return {"lr": deep(steps, peak_lr, warmup_steps, decay_steps, final_fraction)}
