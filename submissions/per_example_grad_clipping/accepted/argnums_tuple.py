# grad with respect to (w, b) as separate arguments, vmapped inside a lambda.
import jax
import jax.numpy as jnp


def loss_wb(w, b, x, y):
    return 0.5 * (jnp.sum(x * w) + b - y) ** 2


def per_example_grad_clip(params, x, y, max_norm):
    w, b = params["w"], params["b"]
    per_example = jax.vmap(lambda xi, yi: jax.grad(loss_wb, argnums=(0, 1))(w, b, xi, yi))
    gw, gb = per_example(x, y)
    norms = jnp.sqrt(jnp.sum(gw ** 2, axis=1) + gb ** 2)
    div = jnp.maximum(1.0, norms / max_norm)
    out_w = jnp.mean(gw / div[:, None], axis=0)
    out_b = jnp.mean(gb / div)
    result = {}
    result["grads"] = {"w": out_w, "b": out_b}
    result["norms"] = norms
    return result
