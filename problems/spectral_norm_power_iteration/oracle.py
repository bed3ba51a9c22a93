"""Independent float64 NumPy oracles, no JAX.

Both first round the inputs to float32 (what the submission receives) and then
work in float64. Under the constraints (every entry of w and u0 is positive) no
vector that is normalised can be zero: W^T u and W v are positive vectors.
"""
import numpy as np


def _inputs(w, u0, num_iters):
    w = np.asarray(np.asarray(w, dtype=np.float32), dtype=np.float64)
    u0 = np.asarray(np.asarray(u0, dtype=np.float32), dtype=np.float64)
    return w, u0, int(num_iters)


def _unit(x):
    return x / np.sqrt(np.sum(x * x))


def oracle_loop(w, u0, num_iters):
    """The power iteration as written in the statement, one step at a time."""
    w, u, k = _inputs(w, u0, num_iters)
    u = _unit(u)
    v = np.zeros(w.shape[1])
    for _ in range(k):
        v = _unit(w.T @ u)
        u = _unit(w @ v)
    sigma = float(u @ w @ v)
    return {"sigma": np.float64(sigma), "u": u, "v": v, "grad": np.outer(u, v)}


def oracle_svd(w, u0, num_iters):
    """Closed form from the SVD W = U S V^T (thin). With c = U^T u0 the k-th iterates are
    v_k ~ V S^(2k-1) c and u_k ~ U S^(2k) c, and sigma = u_k^T W v_k = |S a| / |a| for
    a = S^(2k-1) c. S is divided by its largest value first, so no power overflows;
    the directions do not depend on that scale. No convergence is assumed."""
    w, u0, k = _inputs(w, u0, num_iters)
    U, S, Vt = np.linalg.svd(w, full_matrices=False)
    s = S / S[0]
    c = U.T @ (u0 / np.sqrt(np.sum(u0 * u0)))
    a = s ** (2 * k - 1) * c                 # coordinates of v_k in the basis V (unnormalised)
    b = s ** (2 * k) * c                     # coordinates of u_k in the basis U (unnormalised)
    v = Vt.T @ (a / np.sqrt(np.sum(a * a)))
    u = U @ (b / np.sqrt(np.sum(b * b)))
    sigma = S[0] * np.sqrt(np.sum((s * a) ** 2)) / np.sqrt(np.sum(a * a))
    return {"sigma": np.float64(sigma), "u": u, "v": v, "grad": np.outer(u, v)}


# Invariants ([oracles] invariants in problem.toml): called with the entry's arguments,
# they return (ok, message).

def sigma_is_a_lower_bound(w, u0, num_iters):
    """sigma = |W v| for a unit v, so it never exceeds the largest singular value, and
    u, v are unit vectors."""
    out = oracle_loop(w, u0, num_iters)
    top = float(np.linalg.svd(np.asarray(np.asarray(w, dtype=np.float32), dtype=np.float64),
                              compute_uv=False)[0])
    lengths = (float(np.linalg.norm(out["u"])), float(np.linalg.norm(out["v"])))
    ok = float(out["sigma"]) <= top * (1 + 1e-12) and all(abs(n - 1.0) < 1e-12 for n in lengths)
    return ok, f"sigma {float(out['sigma']):.12g} vs top singular value {top:.12g}; |u|, |v| = {lengths}"


def sigma_grows_with_iterations(w, u0, num_iters):
    """sigma_k^2 is the Rayleigh quotient m_(2k-1) / m_(2k-2) of the moments
    m_j = x^T (W^T W)^j x, x = W^T u0, a log-convex sequence: one more step never lowers sigma."""
    k = int(num_iters)
    now = float(oracle_loop(w, u0, k)["sigma"])
    more = float(oracle_loop(w, u0, k + 1)["sigma"])
    before = float(oracle_loop(w, u0, k - 1)["sigma"]) if k >= 2 else 0.0
    ok = before <= now * (1 + 1e-12) and now <= more * (1 + 1e-12)
    return ok, f"sigma after {k - 1}, {k}, {k + 1} steps: {before:.12g}, {now:.12g}, {more:.12g}"
