# The weights wrapped in a parameter dict, as a model library would hold them; jvp runs
# over the dict and the "w" entry is read out of both the primal and the tangent.
import jax
import jax.numpy as jnp


def loss(params, x, y, lam):
    z = x @ params["w"]
    return jnp.mean(jnp.logaddexp(0.0, z) - y * z) + 0.5 * lam * jnp.vdot(params["w"], params["w"])


def hessian_vector_product(w, x, y, lam, v):
    grad_fn = jax.grad(lambda p: loss(p, x, y, lam))
    g, hv = jax.jvp(grad_fn, ({"w": w},), ({"w": v},))
    return {"grad": g["w"], "hvp": hv["w"]}
