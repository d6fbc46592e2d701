"""GeoResolver §5.2 (A), "Why Hyperbolic?": the volume of a geodesic ball of radius R grows like
e^{(d−1)R} in hyperbolic d-space and like R^d in Euclidean d-space. The volumes are the integrals
ω_{d−1}∫₀^R sinh^{d−1}(r) dr and ω_{d−1}∫₀^R r^{d−1} dr (ω_{d−1} the area of the unit sphere, a constant
that the growth laws ignore), taken symbolically and by adaptive quadrature."""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from attnaudit.checks import Claim, Clause, Reading, ScalingLaw, control, grids, symbolic, tolerances
from attnaudit.checks.fitting import closed_form_bias

STATEMENT = (r"\text{For fixed dimension } d, \text{ the hyperbolic ball volume } V_{\mathbb H}(R)"
             r"\propto e^{(d-1)R} \text{ grows exponentially with radius, while Euclidean volume } "
             r"V_{\mathbb E}(R)\propto R^d \text{ grows polynomially.}")
CLAUSES = (
    Clause("hyperbolic", "the hyperbolic ball volume Vℍ(R)∝e(d−1)RV_H(R) e^(d-1)R grows exponentially "
                         "with radius"),
    Clause("euclidean", "Euclidean volume V(R)∝RdV_E(R) R^d grows polynomially"),
)
READING = ("In the hyperbolic space of dimension d ≥ 2 and curvature −1, V_H(R) = ω_{d−1}∫₀^R sinh^{d−1}(r) "
           "dr = Θ(e^{(d−1)R}) as R → ∞; in R^d, V_E(R) = ω_{d−1}R^d/d. Tested symbolically for d = 2, 3, 4 "
           "and by fitted growth rates for d = 2, 3, 5.")

R, r = sp.symbols("R r", positive=True)
dim = sp.Symbol("d", positive=True, integer=True)
DIMS = (2, 3, 5)
# ∫₀^R sinh^{d−1}(r) dr in closed form (checked below by differentiation and at R = 0).
VOLUMES = {2: sp.cosh(R) - 1, 3: sp.sinh(2 * R) / 4 - R / 2,
           4: sp.cosh(R) ** 3 / 3 - sp.cosh(R) + sp.Rational(2, 3)}


def derivation():
    steps = []
    for d, volume in VOLUMES.items():
        steps.append(symbolic.exact(f"d = {d}: d/dR of the closed form = sinh^{d - 1}(R) (and it is 0 at "
                                    "R = 0)", sp.sinh(R) ** (d - 1) + volume.subs(R, 0), sp.diff(volume, R),
                                    role="statement", clause="hyperbolic"))
        steps.append(symbolic.leading_order(
            f"d = {d}: ∫₀^R sinh^{d - 1}(r) dr = Θ(e^{{{d - 1}R}}) as R → ∞", volume, R,
            sp.exp((d - 1) * R), role="statement", clause="hyperbolic"))
    steps.append(symbolic.exact("Euclidean: ∫₀^R r^{d−1} dr = R^d/d (any d)", R**dim / dim,
                                sp.integrate(r ** (dim - 1), (r, 0, R)), role="statement",
                                clause="euclidean"))
    steps.append(symbolic.leading_order("d = 1: ∫₀^R sinh⁰ dr = R is not Θ(e^{0·R}) (the line does not "
                                        "grow exponentially)", sp.integrate(sp.Integer(1), (r, 0, R)), R,
                                        sp.Integer(1), role="statement", reading="every-d",
                                        note="why the primary reading takes d ≥ 2"))
    return steps


def _volume(kind, d):
    """measure(ctx, grid): ∫₀^R sinh^{d−1} (hyperbolic), ∫₀^R r^{d−1} (euclidean) or ∫₀^R (2 sinh(r/2))^{d−1}
    (quarter: curvature −1/4) by adaptive Gauss–Kronrod quadrature (scipy, relative accuracy 1e-12; the
    integrands stay below e^{400}, far inside float64's range)."""
    f = {"hyperbolic": lambda x: math.sinh(x) ** (d - 1), "euclidean": lambda x: x ** (d - 1),
         "quarter": lambda x: (2 * math.sinh(x / 2)) ** (d - 1)}[kind]

    def measure(ctx, grid):
        from scipy.integrate import quad  # scipy only when a check runs: listing stays fast

        return np.array([quad(f, 0.0, float(v), epsabs=0.0, epsrel=1e-12, limit=200)[0] for v in grid])

    return measure


def _rate_law(d):
    grid = grids.per_profile(quick=np.linspace(5.0, 30.0, 11), full=np.linspace(5.0, 30.0, 41))

    def bias():  # the log-linear fit's bias on the quick grid of the exact volume (SymPy's closed form)
        exact = sp.lambdify(R, sp.integrate(sp.sinh(r) ** (d - 1), (r, 0, R)), "mpmath")
        values = [float(exact(v)) for v in grid.quick]
        return closed_form_bias(grid.quick, values, float(d - 1), law="exponential")

    return ScalingLaw(
        name=f"hyperbolic-growth-rate-d{d}", quantity=f"V_H(R)/ω (d = {d})", variable="R",
        exponent=float(d - 1), order="Θ", law="exponential", grid=grid, measure=_volume("hyperbolic", d),
        tolerance=tolerances.FitBias(bias, f"the exact ∫₀^R sinh^{d - 1}(r) dr on R = 5 … 30 (corrections of "
                                           "order e^{−R} to e^{(d−1)R})"),
        family=f"∫₀^R sinh^{d - 1}(r) dr by adaptive quadrature (relative accuracy 1e-12), R = 5 … 30",
        clause="hyperbolic",
        controls=(control("hyperbolic space of curvature −1/4 (volume ∫(2 sinh(r/2))^{d−1}, rate (d−1)/2)",
                          contrast="hypothesis", hypothesis="curvature −1 (the unit hyperbolic space)",
                          measure=_volume("quarter", d)),))


def _euclid_law(d):
    return ScalingLaw(
        name=f"euclidean-growth-exponent-d{d}", quantity=f"V_E(R)/ω (d = {d})", variable="R",
        exponent=float(d), order="Θ", grid=grids.log_grid(0.01, 100.0, quick=11, full=41),
        measure=_volume("euclidean", d),
        tolerance=tolerances.Exact("R^d/d is an exact power: the fit reads it to quadrature accuracy"),
        family=f"∫₀^R r^{d - 1} dr by adaptive quadrature (relative accuracy 1e-12), R = 1e-2 … 1e2",
        clause="euclidean",
        controls=(control("the hyperbolic volume in place of the Euclidean one", contrast="operator",
                          measure=_volume("hyperbolic", d)),))


CLAIMS = (
    Claim(
        id="georesolver/section-5.2/volume-growth", label="§5.2 (A) Information-theoretic capacity",
        section="§5.2", statement=STATEMENT, reading=READING,
        reading_why="'∝' read as the growth law as R → ∞ (the ratio tends to a constant), d ≥ 2",
        alternatives=(Reading("every-d", "The same law for every d ≥ 1, the line included.",
                              "the text says 'for fixed dimension d' without excluding d = 1"),),
        kind="asymptotic", derivation=derivation, clauses=CLAUSES,
        proof_absent="stated as a known fact of hyperbolic geometry, without argument",
        checks=tuple(_rate_law(d) for d in DIMS) + tuple(_euclid_law(d) for d in DIMS),
        time_limit_s=30.0,
        notes=("For d = 1 (a line) V_H(R) = 2R: the law needs d ≥ 2. The constant is "
               "ω_{d−1}/(2^{d−1}(d−1)); '∝' ignores it. The conclusion drawn from it (hierarchies "
               "embed with exponentially fewer dimensions) is not a checkable proposition here."),
    ),
)
