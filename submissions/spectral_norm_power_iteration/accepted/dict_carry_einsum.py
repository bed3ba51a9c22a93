# A dict carry, einsum products, rsqrt with a tiny guard, and the whole result dict
# returned as grad's auxiliary output.
import jax
import jax.numpy as jnp
from jax import lax


def unit(x):
    return x * lax.rsqrt(jnp.maximum(jnp.sum(jnp.square(x)), 1e-30))


def spectral_norm(w, u0, num_iters):
    def loss(weights):
        def body(i, state):
            v = unit(jnp.einsum("mn,m->n", weights, state["u"]))
            u = unit(jnp.einsum("mn,n->m", weights, v))
            return {"u": u, "v": v}

        init = {"u": unit(u0), "v": jnp.zeros((weights.shape[1],), jnp.float32)}
        state = lax.fori_loop(0, num_iters, body, init)
        state = jax.tree_util.tree_map(lax.stop_gradient, state)
        s = jnp.einsum("m,mn,n->", state["u"], weights, state["v"])
        return s, {"sigma": s, "u": state["u"], "v": state["v"]}

    g, out = jax.grad(loss, has_aux=True)(w)
    out["grad"] = g
    return out
