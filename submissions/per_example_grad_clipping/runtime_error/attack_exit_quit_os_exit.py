# reason: exception
# attack: exit()/quit()/os._exit-like calls reached by name or attribute (jax.numpy.exit, np.sys.exit); none exists for submissions.
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


def _try_routes(routes):
    """Every route must fail; a route that works is an escape and yields a WA, not the expected RE."""
    errors = []
    for route in routes:
        try:
            got = route()
        except Exception as exc:
            errors.append(str(exc))
            continue
        return {"escaped": repr(got)[:200]}
    raise RuntimeError("all routes blocked: " + " | ".join(errors)[:1500])


def per_example_grad_clip(params, x, y, max_norm):
    return _try_routes([
        lambda: exit(0),
        lambda: quit(0),
        lambda: jnp.exit,
        lambda: jax.lax.exit,
        lambda: getattr(jax, "_" + "exit"),
    ])
