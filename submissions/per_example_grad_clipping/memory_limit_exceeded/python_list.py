# reason: memory
import jax


def per_example_grad_clip(params, x, y, max_norm):
    jax.vmap(jax.grad(lambda p: p.sum()))(x)
    big = [0.5] * (400 * 1000 * 1000)
    return big
