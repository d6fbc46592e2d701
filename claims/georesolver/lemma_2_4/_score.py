"""The score gradient ‖∂S/∂q‖ of S = (‖q−k‖²+ε)⁻¹ by autograd, its round-off, and the pairs (q, k)
it is evaluated on: shared by Step 1 (``score-gradient-max``) and Step 3 of ``ida-general``."""

from __future__ import annotations

import math

import numpy as np
import torch

from attnaudit import operators
from attnaudit.checks import sampling, tolerances

DIMS = (1, 3, 16)
SCORE_EPS = (1e-8, 1e4)  # ε range of the score-gradient checks


def score_gradient_norm(q, k, eps):
    """‖∂S/∂q‖ by autograd through ``operators.squared_distances``: q ``(B, m, d)``, one key per
    instance k ``(B, 1, d)``, eps ``(B,)`` → ``(B, m)`` (each S depends on its own q only)."""
    q = q.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad((1.0 / (operators.squared_distances(q, k)[..., 0] + eps[:, None])).sum(), q)
    return torch.linalg.vector_norm(grad, dim=-1)


SCORE_TOL = tolerances.Roundoff(
    condition="1 + (‖q‖+‖k‖)/‖q−k‖ (the backward forms 2G(q − k) as 2(Gq − Gk), which cancels "
              "when ‖q−k‖ ≪ ‖k‖)", scale="the compared value")


def score_tol(q, k, value):
    norm = lambda x: torch.linalg.vector_norm(x, dim=-1)  # noqa: E731
    return SCORE_TOL(1.0 + (norm(q) + norm(k)) / norm(q - k), q.dtype) * value


def on_ray(case, t):
    """q = k + t√ε·u for t ``(B,)`` (in units of √ε, the only length in the problem)."""
    return case["k"] + (t * case["eps"].sqrt())[:, None] * case["u"]


def ray_norm(case, t):
    q = on_ray(case, t)
    value = score_gradient_norm(q[:, None, :], case["k"][:, None, :], case["eps"])[:, 0]
    return value, score_tol(q, case["k"], value)



def point_gap(case, rhs_of):
    """Autograd ‖∂S/∂q‖ at each pair (q, k) against ``rhs_of(a, ε)``, a = ‖q−k‖."""
    q, k, eps = case["q"], case["k"], case["eps"]
    rhs = rhs_of(torch.linalg.vector_norm(q - k, dim=-1), eps)
    return score_gradient_norm(q[:, None, :], k[:, None, :], eps)[:, 0], rhs, score_tol(q, k, rhs)



def sample_points(ctx, gen, batch=None):
    """Pairs q = k + t√ε·u: half with t log-uniform in [1e-4, 1e4], half within ±3 % of 1/√3
    (the shell where the bound is attained); k ~ N(0, I_d), ε log-uniform."""
    batch = batch or ctx.pick(quick=4000, full=40000)
    half = batch // 2
    for d in DIMS:
        case = {"k": sampling.gaussian(ctx, gen, batch, d), "u": sampling.unit_vectors(ctx, gen, batch, d),
                "eps": sampling.log_uniform(ctx, gen, batch, low=SCORE_EPS[0], high=SCORE_EPS[1])}
        unit = torch.rand(batch - half, generator=gen, dtype=ctx.dtype, device=ctx.device)
        shell = 1 + 0.03 * (2 * unit - 1)
        t = torch.cat([sampling.log_uniform(ctx, gen, half, low=1e-4, high=1e4), shell / math.sqrt(3)])
        yield {"q": on_ray(case, t), "k": case["k"], "eps": case["eps"]}


def point_strategy(ctx):
    """One pair (q, k) in d ∈ [1, 4]: k in [−10, 10]^d, q = k + t√ε·u, t ∈ [1e-6, 1e3], ε ∈ [1e-10, 1e4]."""
    from hypothesis import strategies as st
    from hypothesis.extra.numpy import arrays

    def for_dim(d):
        direction = arrays(np.float64, (d,), elements=st.floats(-1, 1, width=64)).filter(
            lambda v: np.linalg.norm(v) > 1e-3)
        return st.tuples(arrays(np.float64, (d,), elements=st.floats(-10, 10, width=64)), direction,
                         st.floats(1e-6, 1e3), sampling.log_uniform_floats(1e-10, 1e4))

    def build(drawn):
        k, u, t, eps = drawn
        case = {"k": ctx.tensor(k)[None], "u": ctx.tensor(u / np.linalg.norm(u))[None],
                "eps": ctx.tensor([eps])}
        return {"q": on_ray(case, ctx.tensor([t])), "k": case["k"], "eps": case["eps"]}

    return st.integers(1, 4).flatmap(for_dim).map(build)


EPS_TEXT = "ε log-uniform in [10^{:g}, 10^{:g}]".format(*map(math.log10, SCORE_EPS))
DIMS_TEXT = "{" + ", ".join(map(str, DIMS)) + "}"
POINT_SAMPLER = (f"pairs q = k + t√ε·u: k ~ N(0, I_d), d ∈ {DIMS_TEXT}; t log-uniform in [1e-4, 1e4] "
                 f"(half) or within ±3 % of 1/√3 (half); {EPS_TEXT}")
