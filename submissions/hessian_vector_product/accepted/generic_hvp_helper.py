# A reusable hvp(f, primals, tangents) helper with aliased imports, the data passed
# through functools.partial, and the loss written with log_sigmoid.
from functools import partial

import jax as J
import jax.numpy as np
from jax.nn import log_sigmoid


def hvp(f, primals, tangents):
    return J.jvp(J.grad(f), primals, tangents)


def objective(w, data, labels, reg):
    logits = np.einsum("nd,d->n", data, w)
    # softplus(z) - y z = -(y log sigmoid(z) + (1 - y) log sigmoid(-z))
    nll = -(labels * log_sigmoid(logits) + (1.0 - labels) * log_sigmoid(-logits))
    return np.sum(nll) / data.shape[0] + reg / 2.0 * np.sum(np.square(w))


def hessian_vector_product(w, x, y, lam, v):
    gradient, product = hvp(partial(objective, data=x, labels=y, reg=lam), (w,), (v,))
    return dict(grad=gradient, hvp=product)
