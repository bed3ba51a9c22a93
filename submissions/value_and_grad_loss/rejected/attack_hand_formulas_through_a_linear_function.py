# reason: requirement
# attack: loss and gradient written by hand, routed through value_and_grad of <p, g> + loss at p = 0; stopped by the dependence probe's shift of the differentiated argument
# value_and_grad_loss: the loss and its gradients are written by hand, then passed
# through value_and_grad of a linear function f(p) = <p, hand_grads> + hand_loss,
# which returns (hand_loss, hand_grads) at p = 0. The MSE is never differentiated.
import jax
import jax.numpy as jnp


def loss_and_grads(params, x, y):
    n = x.shape[0]
    err = x @ params["w"] + params["b"] - y
    loss = 0.5 * jnp.mean(err * err)
    gw, gb = x.T @ err / n, jnp.mean(err)

    def linear(p):
        return jnp.vdot(p["w"], gw) + p["b"] * gb + loss

    zero = {"w": jnp.zeros_like(params["w"]), "b": jnp.zeros_like(params["b"])}
    value, grads = jax.value_and_grad(linear)(zero)
    return {"loss": value, "grads": grads}
