# Three phases chosen element-wise with nested jnp.where; steps since the end of the
# warmup stay int32 until a true division turns them into float32.
import jax.numpy as jnp


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    final_lr = peak_lr * final_fraction
    in_warmup = steps < warmup_steps
    in_decay = steps < warmup_steps + decay_steps
    # A divisor that is never 0: where warmup_steps == 0 no step is in the warmup anyway.
    safe_warmup = jnp.where(warmup_steps > 0, warmup_steps, 1)
    ramp = peak_lr * (steps / safe_warmup)
    since = steps - warmup_steps
    cosine = final_lr + 0.5 * (peak_lr - final_lr) * (1.0 + jnp.cos(jnp.pi * since / decay_steps))
    lr = jnp.where(in_warmup, ramp, jnp.where(in_decay, cosine, final_lr))
    return {"lr": lr.astype(jnp.float32)}
