# Separate w and b arguments with argnums=(0, 1), an aliased import and jit.
import jax as J
import jax.numpy as np
from jax import value_and_grad as vg


def objective(w, b, x, y):
    r = np.einsum("nd,d->n", x, w) + b - y
    return 0.5 * np.sum(r * r) / x.shape[0]


@J.jit
def loss_and_grads(params, x, y):
    loss, (gw, gb) = vg(objective, argnums=(0, 1))(params["w"], params["b"], x, y)
    return dict(loss=loss, grads=dict(w=gw, b=gb))
