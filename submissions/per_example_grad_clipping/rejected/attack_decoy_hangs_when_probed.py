# reason: requirement
# attack: a decoy that loops forever when the transform's result is perturbed, so that the dependence probe never returns (its evidence used to be missing, which passed); stopped by the probe failing closed: a probe that hangs or is killed fails the requirement
import jax
import jax.numpy as jnp


def loss(params, x, y):
    return 0.5 * (x @ params["w"] + params["b"] - y) ** 2


def per_example_grad_clip(params, x, y, max_norm):
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    err = x @ params["w"] + params["b"] - y
    gw, gb = err[:, None] * x, err
    drift = jnp.sum(jnp.abs(g["b"] - gb)) > 1e-3 * (1.0 + jnp.sum(jnp.abs(gb)))
    # A float32 counter stops growing at 2**24: with drift the loop never ends.
    spin = jax.lax.while_loop(lambda s: drift & (s >= 0.0), lambda s: s + 1.0, 0.0)
    norms = jnp.sqrt(jnp.sum(gw ** 2, axis=1) + gb ** 2) + 0.0 * spin
    f = jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.mean(gw / f[:, None], axis=0), "b": jnp.mean(gb / f)}, "norms": norms}
