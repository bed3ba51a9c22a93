# The optimiser state as a typing.NamedTuple class with annotated fields, and annotated
# signatures throughout; one lax.scan over the steps carries it (this file was CE before
# annotated assignments were allowed: "AnnAssign statements are not allowed").
from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp


class AdamState(NamedTuple):
    params: dict
    mu: dict
    nu: dict
    count: jax.Array


def _moments(b: float) -> Callable[[jnp.ndarray, jnp.ndarray], jnp.ndarray]:
    def update(m: jnp.ndarray, x: jnp.ndarray) -> jnp.ndarray:
        return b * m + (1.0 - b) * x

    return update


def adamw(params: dict, grads: dict, lr: float, b1: float, b2: float, eps: float,
          weight_decay: float) -> dict[str, dict]:
    def step(state: AdamState, g: dict) -> tuple[AdamState, None]:
        t: jax.Array = state.count + 1
        mu = jax.tree.map(_moments(b1), state.mu, g)
        nu = jax.tree.map(_moments(b2), state.nu, jax.tree.map(jnp.square, g))
        bc1 = 1.0 - jnp.power(b1, t)
        bc2 = 1.0 - jnp.power(b2, t)

        def new_param(p: jnp.ndarray, m: jnp.ndarray, v: jnp.ndarray) -> jnp.ndarray:
            update = (m / bc1) / (jnp.sqrt(v / bc2) + eps)
            return p - lr * (update + weight_decay * p)

        return AdamState(jax.tree.map(new_param, state.params, mu, nu), mu, nu, t), None

    zeros = jax.tree.map(jnp.zeros_like, params)
    start = AdamState(params=params, mu=zeros, nu=zeros, count=jnp.zeros((), jnp.int32))
    final, _ = jax.lax.scan(step, start, grads)
    return {"new_params": final.params, "mu": final.mu, "nu": final.nu}
