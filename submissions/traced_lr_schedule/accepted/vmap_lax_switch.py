# One scalar schedule, vmapped over the steps. The phase index (0 warmup, 1 decay,
# 2 done) picks a branch with jax.lax.switch; under vmap the switch becomes a select.
import jax
import jax.numpy as jnp


def _one(step, peak, warmup, decay, frac):
    t = step.astype(jnp.float32)
    w = jnp.asarray(warmup, jnp.float32)
    d = jnp.asarray(decay, jnp.float32)

    def warming(_):
        return peak * t / jnp.maximum(w, 1.0)

    def decaying(_):
        c = 0.5 * (1.0 + jnp.cos(jnp.pi * (t - w) / d))
        return peak * (frac + (1.0 - frac) * c)

    def done(_):
        return peak * frac + 0.0 * t

    phase = (step >= warmup).astype(jnp.int32) + (step >= warmup + decay).astype(jnp.int32)
    return jax.lax.switch(phase, [warming, decaying, done], None)


def lr_schedule(steps, peak_lr, warmup_steps, decay_steps, final_fraction):
    lr = jax.vmap(_one, in_axes=(0, None, None, None, None))(steps, peak_lr, warmup_steps, decay_steps,
                                                             final_fraction)
    return {"lr": jnp.asarray(lr, jnp.float32)}
