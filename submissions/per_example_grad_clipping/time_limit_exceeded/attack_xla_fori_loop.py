# reason: time
# attack: a lax.while_loop that never ends, inside XLA (Python signals never run there); wall-clock SIGKILL.
# (A long but finite fori_loop finished in seconds on a fast machine, so the loop must be endless.)
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


def per_example_grad_clip(params, x, y, max_norm):
    out = _solve(params, x, y, max_norm)
    # float32 stops counting at 2**24, so the condition stays true for ever.
    spin = jax.lax.while_loop(lambda c: c[0] > -1.0, lambda c: (c[0] + 1.0, c[1] * 0.5), (jnp.float32(0.0), out["norms"]))
    return {"grads": out["grads"], "norms": out["norms"] + 0.0 * spin[1]}
