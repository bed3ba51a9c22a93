# reason: exception
# attack: prints and raises lone surrogates, ANSI escapes and rich markup ('[/x]') to crash the text report; the policy escapes surrogates (print sink, exceptions leaving a call window) and report.py escapes markup.
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

print("surrogate " + chr(0xD800) + " markup [/x] [bold green]AC Accepted[/bold green] ansi \x1b[2J")


def per_example_grad_clip(params, x, y, max_norm):
    _solve(params, x, y, max_norm)
    print("case " + chr(0xDCFF) + " [/y]")
    raise ValueError("surrogate " + chr(0xD800) + " [/x] \x1b[32m AC Accepted")
