"""GeoResolver §5.5, Definition 5.3 and Theorem 5.5 (L-HIDA complexity and error bound).

The operator tested is L-HIDA exactly as Definition 5.3 writes it (``operators.hida.l_hida_attention``):
each key spreads its value over the m anchors and the anchor summaries are *sums* over the n keys.
The proof of Theorem 5.5 analyses a different object, the row-normalised Nyström approximation
K̃ = K_nm K_mm⁻¹ K_mn of the dense kernel (``nystrom_hida_attention``); it and the variant with
weighted-mean summaries are alternative readings with their own checks.
"""

from __future__ import annotations

import math

import sympy as sp

from attnaudit.checks import Claim, Kind, Reading, ScalingLaw, control, symbolic, tolerances

STATEMENT_COMPLEXITY = r"\text{L-HIDA requires } O(nd_h) \text{ operations } (m=\Theta(1) \text{ anchors})."
STATEMENT_ERROR = (
    r"\text{With probability at least } 1-\delta \text{ over the random selection of anchors (standard "
    r"Nystr\"om sampling): } \|o^{\text{L-HIDA}}-o^{\text{HIDA}}\|_F\le O\!\left(\frac{\sqrt n}{\sqrt m\,"
    r"\varepsilon^2}\right);\ \lambda_k=O(k^{-\alpha}):\ \le O(n\,m^{-\alpha+1/2})+O\!\left(\frac{\sqrt n}"
    r"{\varepsilon^2\sqrt m}\right)."
)

M, M_ERR, D, D_V, EPS = 4, 2, 4, 2, 0.1
COUNT = tolerances.Systematic(1e-6, "round-off of a log-log fit of exact integer FLOP counts")
# Monte-Carlo errors over a handful of anchor draws: the per-n mean's sampling error enters the fit
# through the parametric bootstrap; what remains is the curvature of a law without closed form.
CURVE = tolerances.Systematic(0.1, "pre-asymptotic curvature of an error law without closed form (the "
                                   "kernel's spectrum over the grid)")


# ---------------------------------------------------------------- complexity
def grid_n(ctx):
    import numpy as np

    return np.array(ctx.pick(quick=[16, 64, 256, 1024, 4096, 16384, 65536, 100000],
                             full=[16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768,
                                   65536, 100000]), dtype=float)


def measure_flops(ctx, grid_, m: int = M):
    import numpy as np

    from attnaudit.claims.georesolver import _hida_cost as C

    return np.array([C.l_flops(int(n), m) / C.D_H for n in grid_])


def measure_dense_flops(ctx, grid_):
    import numpy as np

    from attnaudit.claims.georesolver import _hida_cost as C

    return np.array([C.dense_flops(int(n)) / C.D_H for n in grid_])


def info_memory(ctx, grid_):
    """Bytes of L-HIDA's two weight matrices (2·n·m·8) per n: informational (deterministic)."""
    return {"columns": {"weight bytes (2·n·m·8)": [2 * int(n) * M * 8 for n in grid_]}}


# ---------------------------------------------------------------- error
def derivation():
    v1, v2, ka1, ka2 = sp.symbols("v_1 v_2 K_a1 K_a2", positive=True)
    # m = 1 anchor a, n = 2 keys: every W^KA_i1 = W^QA_j1 = 1.
    l_hida = v1 + v2  # ṽ_1 = Σ_i v_i, o_j = ṽ_1
    nystrom = (ka1 * v1 + ka2 * v2) / (ka1 + ka2)  # row of K_ja K_aa⁻¹ K_a· normalised
    return [
        symbolic.exact("the operator the proof analyses (row-normalised Nyström K_nm K_mm⁻¹ K_mn) is "
                       "L-HIDA (Definition 5.3): m = 1, n = 2", l_hida, nystrom, role="proof",
                       note="Definition 5.3's summaries are sums over the keys; the Nyström output is a "
                            "weighted mean"),
    ]


def _error_run(ctx, n: int, eps: float, trials: int):
    """Frobenius errors of the three operators against Dense-HIDA over ``trials`` draws of keys
    (uniform radius ≤ 0.8 in the ball), unit values and m random anchors among the keys."""
    import torch

    from attnaudit.checks.context import single_thread
    from attnaudit.operators import hida

    gen = ctx.generator(f"error:{n}:{eps}")
    with single_thread():
        x = torch.randn(trials, n, D, generator=gen, dtype=ctx.dtype)
        radius = 0.8 * torch.rand(trials, n, 1, generator=gen, dtype=ctx.dtype) ** (1 / D)
        k = x / torch.linalg.vector_norm(x, dim=-1, keepdim=True) * radius
        v = torch.randn(trials, n, D_V, generator=gen, dtype=ctx.dtype)
        v = v / torch.linalg.vector_norm(v, dim=-1, keepdim=True)
        pick = torch.rand(trials, n, generator=gen).argsort(dim=-1)[:, :M_ERR]
        anchors = torch.gather(k, 1, pick[..., None].expand(-1, -1, D))
        dense = hida.dense_hida_gram(k, k, v, eps=eps)
        outs = {"paper": hida.l_hida_attention(k, k, v, anchors, eps=eps),
                "normalised": hida.l_hida_attention(k, k, v, anchors, eps=eps, normalise=True),
                "nystrom": hida.nystrom_hida_attention(k, k, v, anchors, eps=eps)}
        return {key: torch.linalg.matrix_norm(o - dense) for key, o in outs.items()}


def grid_err_n(ctx):
    import numpy as np

    return np.array(ctx.pick(quick=[4, 16, 64, 256, 1024, 4096],
                             full=[4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096]), dtype=float)


def grid_err_eps(ctx):  # noqa: ARG001
    import numpy as np

    return np.logspace(-3, 1, 9)


def _trials(ctx, n: int) -> int:
    return max(1, ctx.pick(quick=4096, full=16384) // n)


def measure_vs_n(which: str):
    def run(ctx, grid_):

        def compute():
            return [_error_run(ctx, int(n), EPS, _trials(ctx, int(n))) for n in grid_]

        runs = ctx.cached(("err-n", tuple(grid_)), compute)
        return _means([r[which] for r in runs])

    return run


def measure_vs_eps(which: str):
    def run(ctx, grid_):
        runs = ctx.cached(("err-eps", tuple(grid_)),
                          lambda: [_error_run(ctx, 256, float(e), ctx.pick(quick=8, full=32)) for e in grid_])
        return _means([r[which] for r in runs])

    return run


def _means(samples):
    import numpy as np

    mean = np.array([float(s.mean()) for s in samples])
    se = np.array([float(s.std() / math.sqrt(len(s))) if len(s) > 1 else 0.0 for s in samples])
    return mean, np.where(se > 0, se, 1e-3 * mean)


FAMILY_N = (f"self-attention, d_h = {D}, keys with uniform radius ≤ 0.8 in the ball, unit values in ℝ^{D_V}, "
            f"m = {M_ERR} anchors drawn uniformly among the keys, ε = {EPS}; n = 4 … 4096 (twice as dense in "
            "full), 4096/n "
            "(full 16384/n) draws per n, at least 1; error bars: s.e. over draws")
FAMILY_EPS = ("n = 256, the family of the n law otherwise, ε = 10⁻³ … 10 (9 points); 8 (full 32) draws; "
              "the bound's ε⁻² allows growth at most like ε⁻² as ε → 0")


def _n_law(name, which, reading=None, controls=()):
    return ScalingLaw(
        name=name, quantity=f"‖o − o^HIDA‖_F ({which} operator)", variable="n", exponent=0.5, order="O",
        grid=grid_err_n, measure=measure_vs_n(which), family=FAMILY_N, tolerance=CURVE, reading=reading,
        predicted="O(√n/(√m ε²)) at fixed m, ε: exponent ≤ 1/2", controls=controls)


def _eps_law(name, which, reading=None, controls=()):
    return ScalingLaw(
        name=name, quantity=f"‖o − o^HIDA‖_F ({which} operator)", variable="ε", exponent=-2.0, order="Ω",
        grid=grid_err_eps, measure=measure_vs_eps(which), family=FAMILY_EPS, tolerance=CURVE,
        reading=reading, predicted="O(ε⁻²): the exponent in ε is at least −2", controls=controls)


def correction(evidence):
    ev = next(e for e in evidence if e["name"] == "error-vs-n")
    if ev["status"] != "disagrees":
        return None
    lo, hi = ev["fit"]["ci"]
    return (f"For L-HIDA as Definition 5.3 defines it the error grows like n^{ev['fit']['exponent']:.2f} "
            f"(95% CI [{lo:.2f}, {hi:.2f}]), not √n: the summaries are sums over the n keys. With "
            "weighted-mean summaries, or for the Nyström object the proof analyses, O(√n) holds on this "
            "family.")


CLAIMS = (
    Claim(
        id="georesolver/theorem-5.5/complexity", label="Theorem 5.5 (L-HIDA complexity)", section="§5.5",
        statement=STATEMENT_COMPLEXITY, kind=Kind.COMPLEXITY,
        no_derivation="the count is measured; the proof states it without an argument",
        proof_absent="the theorem's proof treats only the error bound",
        reading=(f"L-HIDA as in Definition 5.3 with m = {M} anchors fixed: its FLOPs (FlopCounterMode, meta "
                 "tensors) divided by d_h grow like n¹ (Θ(n d_h) in all)."),
        reading_why="the literal statement; m = Θ(1) made concrete as a fixed m",
        checks=(
            ScalingLaw(
                name="flops-vs-n", quantity="FLOPs / d_h of L-HIDA", variable="n", exponent=1.0, order="O",
                grid=grid_n, measure=measure_flops, tolerance=COUNT, info=info_memory,
                family=(f"m = {M} anchors, d_h = d_v = 16, self-attention over n = 16 … 10⁵ tokens; FLOPs of "
                        "matmul-type ops (the distances' inner products and the two weighted sums)"),
                predicted="O(n d_h)",
                controls=(control("Dense-HIDA's FLOPs in its place", measure=measure_dense_flops),)),
        ),
        time_limit_s=60.0,
    ),
    Claim(
        id="georesolver/theorem-5.5/error", label="Theorem 5.5 (L-HIDA error bound)", section="§5.5",
        statement=STATEMENT_ERROR, kind=Kind.INEQUALITY, derivation=derivation, correction=correction,
        reading=("L-HIDA exactly as Definition 5.3 (summaries ṽ_k = Σ_i W̃^KA_ik v_i), m anchors drawn "
                 "uniformly among the keys (Nyström sampling), self-attention with bounded (unit) values: "
                 "the mean Frobenius error against Dense-HIDA grows at most like √n at fixed m, ε, and at "
                 "most like ε⁻² as ε → 0."),
        reading_why=("the statement is about o^L-HIDA, the operator Definition 5.3 defines; its O(·) is read "
                     "as rates in n and ε at fixed m (the m-rate needs m ≤ n over three decades)"),
        alternatives=(
            Reading("nystrom", "The same bound for the object the proof analyses: Dense-HIDA with its kernel "
                               "replaced by the Nyström K̃ = K_nm K_mm⁺ K_mn, rows normalised.",
                    "the proof's argument is about K̃, not Definition 5.3's operator"),
            Reading("mean-summaries", "The same bound for L-HIDA with weighted-mean summaries "
                                      "ṽ_k = Σ_i W̃^KA_ik v_i / Σ_i W̃^KA_ik.",
                    "the nearest operator to Definition 5.3 whose output is a convex combination of values"),
        ),
        checks=(
            _n_law("error-vs-n", "paper"),
            _eps_law("error-vs-eps", "paper"),
            _n_law("nystrom-error-vs-n", "nystrom", "nystrom",
                   (control("the paper's operator's errors in its place", measure=measure_vs_n("paper")),)),
            _eps_law("nystrom-error-vs-eps", "nystrom", "nystrom",
                     (control("an ε-independent error predicted (exponent ≥ 0)", exponent=0.0),)),
            _n_law("mean-summaries-error-vs-n", "normalised", "mean-summaries",
                   (control("the paper's operator's errors in its place", measure=measure_vs_n("paper")),)),
        ),
        time_limit_s=60.0,
        notes=("The operator tested (Definition 5.3) is NOT the Nyström object the proof analyses (proof "
               "step above: with one anchor it returns Σ_i v_i, the Nyström object a weighted mean); the "
               "Nyström object is the alternative reading 'nystrom'. Only the rates in n and ε are tested: "
               "a rate in m over three decades needs n ≫ 1000 dense references per point (beyond the quick "
               "budget). On this family the mean-summaries and "
               "Nyström errors do not fall like m^(−1/2) (measured 2.49 → 2.22 and 3.1 → 1.4 for m = 2 → 512 "
               "at n = 1024, outside the record); the spectral-decay variant is not tested."),
    ),
)
