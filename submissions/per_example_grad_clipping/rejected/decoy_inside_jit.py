# reason: requirement
# The decoy of decoy_call.py inside a jax.jit-compiled helper: the dependence probe
# must still see that the gradients are thrown away when the transform runs in a
# program that JAX traces once and caches.
import jax
import jax.numpy as jnp


def loss(params, x, y):
    return 0.5 * (x @ params["w"] + params["b"] - y) ** 2


@jax.jit
def by_hand(params, x, y):
    _unused = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    err = x @ params["w"] + params["b"] - y
    return err[:, None] * x, err


def per_example_grad_clip(params, x, y, max_norm):
    gw, gb = by_hand(params, x, y)
    norms = jnp.sqrt(jnp.sum(gw ** 2, axis=1) + gb ** 2)
    f = jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.mean(gw / f[:, None], axis=0), "b": jnp.mean(gb / f)}, "norms": norms}
