# Per-step scalar function with nested jax.lax.cond, vmapped over the steps; the
# clamp after the decay is a jnp.minimum on the steps taken since the warmup.
import jax
import jax.numpy as jnp


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    final_lr = final_fraction * peak_lr

    def one(step):
        def warm():
            return peak_lr * step / jnp.maximum(warmup_steps, 1)

        def cosine():
            since = jnp.minimum(step - warmup_steps, decay_steps)
            return final_lr + (peak_lr - final_lr) * (0.5 + 0.5 * jnp.cos(jnp.pi * since / decay_steps))

        return jax.lax.cond(step < warmup_steps, warm, cosine)

    return {"lr": jax.vmap(one)(steps).astype(jnp.float32)}
