# reason: output_size
# attack: a million prints (stdout flood) followed by an oversized result; the print sink keeps 8 KB, the Packer refuses the result (OLE).
import jax
import jax.numpy as jnp

def _loss(params, x, y):
    err = jnp.dot(x, params["w"]) + params["b"] - y
    return 0.5 * err * err


def _solve(params, x, y, max_norm):
    grads = jax.vmap(jax.grad(_loss), in_axes=(None, 0, 0))(params, x, y)
    norms = jnp.sqrt(jnp.sum(grads["w"] ** 2, axis=1) + grads["b"] ** 2)
    scale = 1.0 / jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.mean(grads["w"] * scale[:, None], axis=0), "b": jnp.mean(grads["b"] * scale)},
            "norms": norms}

for i in range(200000):
    print("load flood", i)


def per_example_grad_clip(params, x, y, max_norm):
    out = _solve(params, x, y, max_norm)
    for i in range(1000000):
        print("case flood", i)
    return {"grads": out["grads"], "norms": jnp.zeros((1 << 20,), jnp.float32)}
