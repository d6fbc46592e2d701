"""The DMG pool setting shared by section-9.2 and proposition-11.3 (part 1): stream, pool parameters,
comparator and the per-decade regret grid with its closed-form fit bias. No numerics at import."""

from __future__ import annotations

from attnaudit.checks import grids, tolerances

POOL = {"window": 8, "tau_base": 3.5, "kappa": 0.25, "gamma": 1.0}  # ℓ has mean dσ² = 2 < τ_base
ETA = 0.1  # Definition 5.4's constant step (the paper gives no value)
STEPS = {"constant": ETA, "running": "running-mean"}
RATIO = 10  # the regret gained over [T/10, T]
SETTING = ("x_t = c_k + N(0, I₂), k uniform over four centres (±10, ±10), pool started at the centres "
           f"with k_max = 4; detector μ_t-trigger, τ_base = {POOL['tau_base']:g}, κ = {POOL['kappa']:g}, "
           f"γ = {POOL['gamma']:g}, W = {POOL['window']}")
COMPARATOR = ("regret R_T = Σ_{t≤T} ℓ_t − Σ_{t≤T} ‖x_t − x̄_{k_t,T}‖², ℓ_t = min_e ‖x_t − c_e‖² before the "
              "update; comparator: the best fixed four centroids in hindsight for the generating "
              "partition (the cluster means), optimal up to points nearer another cluster (probability "
              "~1e-23 at 20σ separation)")


def increment_bias():

    from attnaudit.claims.georesolver import _dmg

    grid = INCR_GRID.full
    incr = _dmg.running_mean_regret(grid) - _dmg.running_mean_regret(grid / RATIO)
    from attnaudit.checks.fitting import closed_form_bias

    return closed_form_bias(grid, incr, 0.0)


INCREMENT_TOL = tolerances.FitBias(increment_bias, "E[R_T − R_{T/10}] of the running mean (closed form "
                                   "K·dσ²·Σ_{T/40 ≤ m < T/4} m/(m+1)²) on the full grid", margin=2.0)


# The increments' grid: T = RATIO × whole numbers log-spaced over [1, 1000].
INCR_GRID = grids.per_profile(quick=RATIO * grids.log_spaced_integers(1, 1000, 7),
                              full=RATIO * grids.log_spaced_integers(1, 1000, 13))
