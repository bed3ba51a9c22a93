# reason: requirement
# The closed form of the k-th iterate from an SVD (u_k ~ U S^(2k) U^T u0), with a
# fori_loop whose result is thrown away: the numbers are right, but decompositions are
# forbidden and the outputs do not come from the loop.
import jax
import jax.numpy as jnp


def spectral_norm(w, u0, num_iters):
    def sigma_of(w):
        jax.lax.fori_loop(0, num_iters, lambda i, u: u, u0)  # decoy
        wc = jax.lax.stop_gradient(w)
        U, S, Vt = jnp.linalg.svd(wc, full_matrices=False)
        s = S / S[0]
        c = U.T @ u0
        a = s ** (2 * num_iters - 1) * c
        b = s ** (2 * num_iters) * c
        v = Vt.T @ (a / jnp.linalg.norm(a))
        u = U @ (b / jnp.linalg.norm(b))
        sigma = u @ w @ v
        return sigma, (sigma, u, v)

    grad, (sigma, u, v) = jax.grad(sigma_of, has_aux=True)(w)
    return {"sigma": sigma, "u": u, "v": v, "grad": grad}
