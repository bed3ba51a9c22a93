# reason: time
import jax


def per_example_grad_clip(params, x, y, max_norm):
    f = jax.vmap(jax.grad(lambda p, a, b: a.sum()))
    n = 0
    while True:
        n += 1
