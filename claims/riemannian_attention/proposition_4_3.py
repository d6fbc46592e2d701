"""Riemannian attention, Proposition 4.3: the metric correction adds O(B L² r), an O(r/d) overhead."""

from __future__ import annotations

from attnaudit import tolerances
from attnaudit.checks import Claim, Clause, Reading, ScalingLaw, control, grids
from attnaudit.claims.riemannian_attention._cost import closed_form_tol, per_point, score_flops

STATEMENT = (r"\text{metric correction: } O(B L^2 r) \text{ pairwise cost, overhead } O(r/d) "
             r"\text{ relative to standard attention } O(B L^2 d)")
CLAUSES = (Clause("pairwise-cost", "the geodesic metric correction adds only O(BL^2 r) pairwise cost"),
           Clause("overhead", "negligible overhead O(r/d) for Riemannian attention"))
READING = (
    "Computing the metric correction of the scores (the Eq. (16) decomposed scores minus the "
    "Euclidean part ‖q‖² + ‖k‖² − 2qᵀk) for L queries and L keys costs O(L² r) counted FLOPs: "
    "exponent ≤ 0 in d at fixed L, r; ≤ 2 in L; ≤ 1 in r; and its ratio to standard attention "
    "(QKᵀ and PV, 4L²d FLOPs) is O(r/d): exponent ≤ −1 in d (B = 1; B only multiplies both)."
)

R, N, D = 4, 16, 64
D_GRID = (4, 10, 25, 63, 160, 400, 1000, 2500, 6300)
R_GRID = (3, 8, 20, 50, 125, 320, 800, 2000, 5000)  # from r = 3: at r = 1 the counter misses r-term dots
N_GRID = (4, 10, 25, 63, 160, 400, 1000, 2500, 6300)
D_FOR_R = 8192
LOWER = tolerances.Systematic(0.05, "lower-order terms of the exact counts on the grid: per-token "
                                    "O(L d r) beside O(L² d r), r-term products beside d·r ones")


def correction_closed_form(n, d, r):
    """The counted FLOPs of the correction: 4ndr (U_iᵀq_i, U_jᵀk_j) + 4n²dr (U_iᵀk_j, U_jᵀq_i) +
    4nr + 8n²r (the r-term products); equal to the counter's on every grid point (the test)."""
    return 4 * n * d * r + 4 * n * n * d * r + 4 * n * r + 8 * n * n * r


def _corr(d, n=N, r=R):
    return score_flops(n, d, r, "correction")


def _ratio(d):
    return _corr(d) / score_flops(N, d, R, "standard")


def _law(name, variable, exponent, grid, fn, family, predicted="", order="O", tolerance=LOWER, ratio=False,
         **kw):
    return ScalingLaw(name=name, quantity="correction / standard-attention FLOPs" if ratio else
                      "FLOPs of the metric correction", variable=variable, exponent=exponent, order=order,
                      grid=grids.fixed(grid), measure=per_point(fn), family=family, predicted=predicted,
                      tolerance=tolerance, **kw)


FAM_D = f"L = {N}, r = {R}, exact counts on meta tensors"

CLAIMS = (Claim(
    id="riemannian-attention/proposition-4.3", label="Proposition 4.3 (complexity table)", section="§4.3",
    statement=STATEMENT, kind="complexity", clauses=CLAUSES, reading=READING,
    no_derivation="a cost accounting: measured by FLOP counts of the Eq. (16) computation",
    proof_absent="the source quotes the complexity table; its accounting is what is measured",
    reading_why="the literal table entry and overhead ratio",
    alternatives=(Reading(
        "referee", "The correction costs Θ(L² d r) and the overhead ratio is Θ(r) (the review's "
        "major comment 1): exponent 1 in d for the cost and 0 in d for the ratio.",
        "the review's objection, stated as a proposition to test"),),
    notes=("The per-pair projections U_iᵀk_j and U_jᵀq_i (2·d·r FLOPs each, 4·d·r per pair against "
           "standard attention's 4·d) dominate: at r = 8, d = 4096 the counted ratio is 8.50 at L = 16 "
           "and 8.01 at L = 1024, the review's '8x'. The suite agrees with the review: O(B L² d r) "
           "and an O(r) overhead. MetricNet and the inversion are not included (definition-5.2, "
           "proposition-4.1)."),
    checks=(
        _law("correction-vs-d", "d", 0.0, D_GRID, _corr, FAM_D, "O(L² r): exponent ≤ 0 in d",
             clause="pairwise-cost"),
        _law("correction-vs-l", "L", 2.0, N_GRID, lambda n: _corr(D, n=n), f"d = {D}, r = {R}, exact counts",
             controls=(control("prediction O(L)", exponent=1.0),), clause="pairwise-cost"),
        _law("correction-vs-r", "r", 1.0, R_GRID, lambda r: _corr(D_FOR_R, r=r), f"L = {N}, d = {D_FOR_R}, "
             "exact counts", controls=(control("prediction O(r⁰)", exponent=0.0),), clause="pairwise-cost",
             tolerance=closed_form_tol(R_GRID, lambda r: correction_closed_form(N, D_FOR_R, r), 1.0,
                                       "the closed-form count on the r grid (linear in r)", floor=1e-9)),
        _law("overhead-vs-d", "d", -1.0, D_GRID, _ratio, FAM_D, "O(r/d): exponent ≤ −1 in d", ratio=True,
             clause="overhead"),
        _law("referee-correction-vs-d", "d", 1.0, D_GRID, _corr, FAM_D, "Θ(L² d r): exponent 1 in d",
             order="Θ", reading="referee",
             controls=(control("the paper's O(L² r) (exponent 0)", exponent=0.0),),
             tolerance=closed_form_tol(D_GRID, lambda d: correction_closed_form(N, d, R), 1.0,
                                       f"the closed-form count on the d grid (L = {N}, r = {R})",
                                       floor=1e-9)),
        _law("referee-overhead-vs-d", "d", 0.0, D_GRID, _ratio, FAM_D, "Θ(r): exponent 0 in d", order="Θ",
             reading="referee", ratio=True,
             controls=(control("the paper's O(r/d) (exponent −1)", exponent=-1.0),),
             tolerance=closed_form_tol(D_GRID, lambda d: correction_closed_form(N, d, R) / (4 * N * N * d),
                                       0.0, f"the closed-form ratio on the d grid (L = {N}, r = {R})",
                                       floor=1e-9)),
    ),
),)
