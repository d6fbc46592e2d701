"""Entropic Bound abstract: gradient descent recovers the intrinsic rank. GD on a full-width factorisation
M = U Vᵀ (U, V ∈ ℝ^{n×n}: no rank imposed) from a small balanced initialisation, the standard implicit-bias
setting, on an underdetermined training set (fewer feature columns than tokens)."""

import torch

from attnaudit.checks import Claim, Clause, Relation, control, tolerances
from attnaudit.claims.entropic_bound import _surrogate

STATEMENT = (r"\text{``We further show that gradient descent recovers this rank under standard "
             r"low-rank implicit-bias assumptions''}")
CLAUSES = (Clause("recovers", "gradient descent recovers this rank under standard low-rank implicit-bias "
                              "assumptions"),)
RANKS = (1, 2, 3)
COLUMNS = 8  # N·d feature columns in the training set: < n = 16 tokens (underdetermined)
SMALL_INIT, LARGE_INIT = 1e-3, 1.0
# Escape from a 1e-3 start takes ~log(1/init)/σ steps for the smallest singular value σ the data
# see; measured worst relative residual over 20 seeds × 48 tasks: 0.12 after 1000 steps (a
# seed-dependent failure to fit, not a statement about the rank), 0.012 after 2000, 0.0021 after
# 4000. 4000 steps leave a 24× margin below FIT on every seed.
STEPS, LR = 4000, 0.05
ENERGY_LEFT = 1e-4  # energy effective rank: smallest k with Σ_{i≤k} σ_i² ≥ (1 − 1e-4) Σ σ_i²
FIT = 0.05  # relative training residual below which GD has fitted the data
READING = (
    "In the linear token-mixing surrogate with rank(M*) = r*, gradient descent on a full-width "
    f"factorisation U Vᵀ from a small balanced initialisation (scale {SMALL_INIT:g}) on an "
    f"underdetermined noiseless training set ({COLUMNS} feature columns < n = 16 tokens) fits the data "
    f"(relative residual ≤ {FIT:g} after {STEPS} steps) and ends with energy effective rank exactly r* "
    f"(the fewest singular values holding 1 − {ENERGY_LEFT:g} of the energy).")
READING_WHY = (
    "the 'standard low-rank implicit-bias assumptions' are, in the literature on factorised gradient "
    "descent, a small initialisation and a full-width factorisation; an underdetermined training set "
    "is where a bias is needed at all; the abstract names the energy effective rank as its estimator, "
    "the 1e-4 energy threshold is the suite's; " + _surrogate.TASK_FAMILY)

SAMPLER = (f"tasks of intrinsic rank r* ∈ {RANKS}, 16 each, with a training set of {COLUMNS} feature columns "
           "(noiseless Y = M*X): " + _surrogate.TASK_FAMILY)


def _cases(ctx, gen):
    for rank in RANKS:
        batch = ctx.pick(quick=16, full=128)
        target, s = _surrogate.sample_tasks(ctx, gen, batch, rank)
        x = torch.randn(batch, _surrogate.N_TOKENS, COLUMNS, generator=gen, dtype=ctx.dtype,
                        device=ctx.device) * s.sqrt()[..., None]
        yield {"target": target, "x": x, "rank": rank, "seed": int(ctx.seed_for(f"init-{rank}") % 2**31)}


_TRAINED: dict = {}  # one training run per (case, init, steps): both checks read the same run


def train(case, init: float, steps: int = STEPS):
    """GD on ½‖U Vᵀ X − Y‖²/c (c columns) from U, V = init·N(0, 1/n), learning rate LR (each run is
    done once per case: the residual and the rank checks share it)."""
    key = (int(case["seed"]), init, steps, tuple(case["x"].shape), float(case["x"].sum()),
           float(case["target"].sum()))
    if key in _TRAINED:
        return _TRAINED[key]
    if len(_TRAINED) > 16:
        _TRAINED.clear()
    target, x = case["target"], case["x"]
    batch, n, cols = x.shape
    gen = torch.Generator(device=x.device).manual_seed(int(case["seed"]))
    u = init * torch.randn(batch, n, n, generator=gen, dtype=x.dtype, device=x.device) / n**0.5
    v = init * torch.randn(batch, n, n, generator=gen, dtype=x.dtype, device=x.device) / n**0.5
    gram = x @ x.transpose(-1, -2) / cols
    cross = target @ gram  # (Y Xᵀ)/c with Y = M* X
    for _ in range(steps):
        grad = u @ (v.transpose(-1, -2) @ gram) - cross  # ∂/∂(U Vᵀ)
        u, v = u - LR * grad @ v, v - LR * grad.transpose(-1, -2) @ u
    _TRAINED[key] = u @ v.transpose(-1, -2)
    return _TRAINED[key]


def energy_rank(m):
    energy = torch.linalg.svdvals(m).square()
    share = torch.cumsum(energy, -1) / energy.sum(-1, keepdim=True)
    return ((share < 1 - ENERGY_LEFT).sum(-1) + 1).to(m.dtype)


def _rank_gap(init: float):
    def evaluate(case):
        rank = energy_rank(train(case, init))
        return rank, torch.full_like(rank, float(case["rank"])), 0.0

    return evaluate


def _residual(init: float, steps: int = STEPS):
    def evaluate(case):
        y = case["target"] @ case["x"]
        res = (train(case, init, steps) @ case["x"] - y).norm(dim=(-1, -2)) / y.norm(dim=(-1, -2))
        return res, torch.full_like(res, FIT), 0.0

    return evaluate


CLAIMS = (Claim(
    id="entropic-bound/gd-recovers-rank", label="Entropic Bound: gradient descent recovers r*",
    section="abstract", statement=STATEMENT, reading=READING, reading_why=READING_WHY, clauses=CLAUSES,
    kind="construction",
    no_derivation="an implicit-bias statement about an iterative method: no closed form to derive",
    proof_absent="only the abstract is available; it states the result under assumptions it does not name",
    # Measured 9.2 s CPU for the full profile on one thread (each GD run done once, shared by both
    # checks; 90-120 s before, with every run done twice): the 120 s limit is 13× that, headroom
    # for a loaded 2-core CI machine.
    time_limit_s=120.0,
    checks=(
        Relation(
            name="fits-the-data", lhs="‖Û X − Y‖_F/‖Y‖_F after GD (small init)", rel="<=", rhs=f"{FIT:g}",
            evaluate=_residual(SMALL_INIT), sample=_cases,
            tolerance=tolerances.Exact("a threshold on a computed residual"), sampler=SAMPLER,
            # Any iterative method stopped early fails to fit: shown, not a contrast.
            controls=(control("stopped after 10 steps", contrast="setting",
                              evaluate=_residual(SMALL_INIT, 10)),)),
        Relation(
            name="effective-rank-is-intrinsic", lhs="energy effective rank of the learned operator", rel="==",
            rhs="r*", evaluate=_rank_gap(SMALL_INIT), sample=_cases,
            tolerance=tolerances.Exact("integer ranks"), sampler=SAMPLER,
            controls=(control(f"a large initialisation (scale {LARGE_INIT:g}) in place of the small one",
                              contrast="hypothesis", hypothesis="a small initialisation (implicit bias)",
                              evaluate=_rank_gap(LARGE_INIT)),)),
    ),
    notes=("In this surrogate the minimum-norm interpolant Y X⁺ = M* P_X already has rank ≤ r*, so what the "
           "small initialisation provides is GD's bias towards it: started large, the components of U Vᵀ "
           "that the data cannot see (rows outside col(X)) stay, and the effective rank exceeds r*. M* "
           "itself is not identifiable from such data (only M* P_X is), so the rank, not the operator, is "
           "what is recovered."),
),)
