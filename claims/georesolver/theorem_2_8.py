"""GeoResolver §2.7, Theorem 2.8 (Theorem 3: IDA effective rank bound), with §2.8's reading of it:
eff-rank(K) = (tr K)²/tr(K²), K_ij = (‖x_i − x_j‖² + ε)⁻¹, through operators.ida_kernel and
operators.effective_rank; the small-ε bound, the general case, and width independence."""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
import torch

from attnaudit import operators, sampling, symbolic, tolerances
from attnaudit.checks import Claim, Clause, ProofStep, Reading, Relation, ScalingLaw, control, grids

# ══ the statement, as the paper gives it, and the readings tested ══

STATEMENT_SMALL = (r"\text{For embeddings with off-diagonal distances } \ge d_{\min}>0, \text{ if }"
                   r" \epsilon\ll d_{\min}^2 \text{ (specifically, } \epsilon(n-1)/d_{\min}^2\le 1/2"
                   r"\text{), then } \operatorname{eff-rank}(\mathbf{K})\le 1+\frac{n\varepsilon^2}"
                   r"{d_{\min}^4}, \text{ independent of hidden width } d_h.")
CLAUSES_SMALL = (Clause("small-eps-bound", "then eff-rank()≤1+nε2dmin4"),)
READING_SMALL = ("For every n ≥ 2, every point set x_1..x_n ∈ R^d whose off-diagonal distances are "
                 "≥ d_min > 0, and every ε > 0 with ε(n−1)/d_min² ≤ 1/2: with K_ij = (‖x_i−x_j‖²+ε)⁻¹, "
                 "(tr K)²/tr(K²) ≤ 1 + nε²/d_min⁴. Tested with d_min the minimum distance; a smaller "
                 "admissible d_min tightens the hypothesis and keeps the bound ≤ 1 + n/(4(n−1)²).")
STATEMENT_GENERAL = (r"\text{In the general case: } \operatorname{eff-rank}(\mathbf{K})\le n\left(1-"
                     r"\epsilon(n-1)/d_{\min}^2\right)^2 \quad\text{(as rendered; the LaTeX copy reads "
                     r"``n(1-ε(n-1)/d_ ^2)^2'')}.")
CLAUSES_GENERAL = (Clause("general-bound", "In the general case: eff-rank()≤n(1−ϵ(n−1)/dmin2)2"),)
READING_GENERAL = ("K_ij = (‖x_i−x_j‖²+ε)⁻¹ on n ≥ 2 points with off-diagonal distances ≥ d_min > 0 "
                   "(tested with d_min the minimum distance), c = ε(n−1)/d_min² in (0, 1): eff-rank(K) ≤ "
                   "n(1−c)². For c ≥ 1 the factor (1−c)² is 0 at c = 1 and ≥ 1 beyond c = 2: "
                   "nonsensical or vacuous there.")
STATEMENT_WIDTH = (r"\operatorname{eff-rank}(\mathbf{K}) \text{ is bounded } \ldots \text{ independent "
                   r"of hidden width } d_h \quad\text{(Theorem 2.8; §2.8: ``In high dimensions, this "
                   r"bound becomes tighter because the off-diagonal distances } d_{\min} \text{ "
                   r"increase with dimension for random embeddings'')}.")
CLAUSES_WIDTH = (Clause("width-free", "independent of hidden width dhd_h"),)
READING_WIDTH = ("Random embeddings as §2.8 describes them: n points i.i.d. N(0, σ²I) in R^(d_h), n, σ "
                 "and ε fixed, within the theorem's hypothesis ε(n−1)/d_min² ≤ 1/2. Width does not "
                 "raise the effective rank: eff-rank(K) does not increase when the embedding is "
                 "widened, and its gap n − eff-rank(K) to full rank does not close as d_h grows "
                 "(Ω(d_h⁰)), as a bound that is independent of d_h and tightens with it requires.")

# The proof of Theorem 2.8, in source order; the general case adds Lemma 0's two sentences (§5).
PROOF_STEPS = (
    ProofStep("diagonal", "The diagonal entries are Kii=1/ε"), ProofStep("e-entries", "Eij=1‖i−j‖22+ε−1ε"),
    ProofStep("e-algebra", "=−‖i−j‖22ε(‖i−j‖22+ε)"), ProofStep("e-bound", "|Eij|≤1‖i−j‖22+ε≤1dmin2+ε≤1dmin2"),
    ProofStep("gershgorin", "|λm()|≤maxi∑j≠i|Eij|≤n−1dmin2"),
    ProofStep("spectrum", "λm()∈[1ε−n−1dmin2,1ε+n−1dmin2]"),
    ProofStep("rank-formula", "eff-rank()=(tr)2tr(2)=n2/ε2n/ε2+‖F2"),
    ProofStep("frobenius", "Using the bound ‖F2≤n(n−1)/dmin4"),
    ProofStep("intermediate", "eff-rank()≤n1+ε2(n−1)/dmin4"),
    ProofStep("refined", "eff-rank()≤1+nε2dmin4+(nε3dmin6)"),
)
LEMMA_0 = (
    ProofStep("lemma0-frobenius", "Part (b) follows from the Frobenius norm estimate: ‖F2≤n(n−1)(dmin2+ϵ)2"),
    ProofStep("lemma0-general", "The general bound follows from the effective rank formula"),
)
# Width independence: the small-ε bound (no d_h in it), tightening with d_min as §2.8 argues.
PROOF_WIDTH = (
    ProofStep("bound", "then eff-rank()≤1+nε2dmin4"),
    ProofStep("tighter", "In high dimensions, this bound becomes tighter because the off-diagonal "
                         "distances dmind_ increase with dimension for random embeddings"),
)

# ══ the mathematics ══

n, eps, dmin, a, t, F, m, c = sp.symbols("n epsilon d_min a t F m c", positive=True)
COUNT = m + 2  # n > 2 written n = m + 2 with m > 0, so that SymPy sees n − 2 > 0
TOL = tolerances.Roundoff(condition="n² (tr K² is a sum of n² squares)", scale="eff-rank(K)")
LABEL = "Theorem 2.8 (Theorem 3: IDA effective rank bound), "


def _le(lhs, rhs, subs=None):
    """``lhs ≤ rhs`` as the sign of one factored fraction, which SymPy can decide."""
    return sp.GreaterThan(sp.factor(sp.together((rhs - lhs).subs(subs or {}))), 0, evaluate=False)


_rank_of = lambda frobenius2: n / (1 + eps**2 * frobenius2 / n)  # noqa: E731 - the proof's formula


def _proof_steps():
    """The proof's steps shared by both cases; a stands for ‖x_i − x_j‖² (i ≠ j), F for ‖E‖_F²."""
    paper_e = 1 / (a + eps) - 1 / eps
    E = sp.Matrix(3, 3, lambda i, j: 0 if i == j else sp.Symbol(f"e{min(i, j)}{max(i, j)}", real=True))
    K = sp.eye(3) / eps + E
    return [
        symbolic.exact("K_ii = 1/ε", 1 / eps, 1 / (sp.Integer(0) + eps), role="proof", step="diagonal"),
        symbolic.exact("E = K − ε⁻¹I: for i ≠ j, E_ij = 1/(‖x_i−x_j‖²+ε) − 1/ε", paper_e, 1 / (a + eps),
                       role="proof", step="e-entries",
                       note="off the diagonal ε⁻¹I contributes nothing: E_ij = K_ij"),
        symbolic.exact("the paper's algebra: 1/(a+ε) − 1/ε = −a/(ε(a+ε))", -a / (eps * (a + eps)),
                       paper_e, role="proof", step="e-algebra", note="right as algebra, but it is not E_ij"),
        symbolic.holds("|E_ij| = a/(ε(a+ε)) ≤ 1/(a+ε) (the paper's E_ij; a = ε(1+t) > ε under the "
                       "hypothesis)", _le(a / (eps * (a + eps)), 1 / (a + eps), {a: eps * (1 + t)}),
                       role="proof", step="e-bound", note="with E_ij = K_ij it holds"),
        symbolic.exact("eff-rank(K) = (tr K)²/tr(K²) = (n²/ε²)/(n/ε² + ‖E‖_F²) (shown for n = 3)",
                       (3 / eps) ** 2 / (3 / eps**2 + sum(v**2 for v in E)),
                       K.trace() ** 2 / (K * K).trace(), role="proof", step="rank-formula"),
        symbolic.holds("‖E‖_F² ≤ n(n−1)/d_min⁴ ⇒ eff-rank(K) ≤ n/(1+ε²(n−1)/d_min⁴)",
                       _le(_rank_of(F), _rank_of(F + t)), role="proof", step="intermediate",
                       note="eff-rank = n/(1+ε²‖E‖_F²/n) decreases in ‖E‖_F²: an upper bound on "
                            "‖E‖_F (F + t) gives a lower bound on eff-rank"),
    ]


def _compatibility(role, **tags):
    return symbolic.holds(
        "under the hypothesis, eff-rank ≤ 1 + nε²/d_min⁴ ≤ 1 + n/(4(n−1)²) is compatible with "
        "eff-rank ≥ 4n(n−1)/(4n−3) (n = m + 2)",
        _le(4 * n * (n - 1) / (4 * n - 3), 1 + n / (4 * (n - 1) ** 2), {n: COUNT}), role=role, **tags,
        note="false for every n > 2 (n = 2 by the numerics): every admissible configuration "
             "violates the small-ε bound")


def _spectrum_steps():
    """The proof's Gershgorin interval (computed, never used) and its refined bound."""
    e12, e13, e23, mu = sp.symbols("e12 e13 e23 mu", real=True)
    E = sp.Matrix([[0, e12, e13], [e12, 0, e23], [e13, e23, 0]])
    return [
        symbolic.holds("Gershgorin: |λ_m(E)| ≤ max_i Σ_{j≠i}|E_ij| ≤ (n−1)/d_min²",
                       _le((COUNT - 1) / (dmin**2 + t + eps), (COUNT - 1) / dmin**2), role="proof",
                       step="gershgorin",
                       note="with the true E_ij = K_ij = 1/(a+ε), a = d_min² + t ≥ d_min²"),
        symbolic.exact("λ_m(K) = ε⁻¹ + λ_m(E): det(K − (ε⁻¹+μ)I) = det(E − μI) (n = 3)",
                       (E - mu * sp.eye(3)).det(),
                       (sp.eye(3) / eps + E - (1 / eps + mu) * sp.eye(3)).det(), role="proof",
                       step="spectrum"),
        symbolic.limit("refined bound 1 + nε²/d_min⁴ + O(nε³/d_min⁶): eff-rank → 1 as ε → 0",
                       n**2 / eps**2 / (n / eps**2 + F), eps, 0, sp.Integer(1), role="proof",
                       step="refined",
                       note="for a fixed point set ‖E‖_F² stays bounded as ε → 0: eff-rank → n"),
    ]


def derivation():
    return [*_proof_steps(), *_spectrum_steps(), _compatibility("statement")]


# ── numerics ──


def _ida_rank(x, eps_):
    return operators.effective_rank(operators.ida_kernel(x, eps=eps_))


def _softmax_rank(x, eps_):
    """eff-rank of the softmax kernel exp(x_i·x_j/√d), which Theorem 2.9 contrasts with IDA's
    (shifted by its maximum: the ratio is scale-invariant); ε plays no part."""
    s = x @ x.transpose(-1, -2) / math.sqrt(x.shape[-1])
    return operators.effective_rank((s - s.amax(dim=(-1, -2), keepdim=True)).exp())


BOUNDS = {  # (n, d_min², ε, c = ε(n−1)/d_min², x) → the bound
    "paper": lambda k, d2, e, r, x: 1 + k * e**2 / d2**2,
    "frobenius": lambda k, d2, e, r, x: k / (1 + e**2 * (k - 1) / (d2 + e) ** 2),
    "dmax": lambda k, d2, e, r, x: k / (1 + e**2 * (k - 1) / (  # d_max² from exact differences
        (x[..., :, None, :] - x[..., None, :, :]).square().sum(-1).flatten(-2).amax(-1) + e) ** 2),
    "literal": lambda k, d2, e, r, x: k * (1 - r) ** 2,
    "intermediate": lambda k, d2, e, r, x: k / (1 + e**2 * (k - 1) / d2**2),
    "fraction": lambda k, d2, e, r, x: k / (1 - r) ** 2,
}


def _gap(bound, rank=_ida_rank):
    """eff-rank(K) at ε = c·d_min²/(n−1) (d_min the minimum distance) against BOUNDS[bound]."""

    def evaluate(case):
        x, frac, count = case["x"], case["c"], case["x"].shape[-2]
        d2 = sampling.min_pairwise_squared_distance(x)
        e = frac * d2 / (count - 1)
        value = rank(x, e)
        return value, BOUNDS[bound](count, d2, e, frac, x), TOL(count**2 * value.abs())

    return evaluate


HYPOTHESIS, BELOW_ONE, ANY = 0.5, 0.999, 1e3  # c ranges: the hypothesis, (1−c)²'s domain, any ε


def _relation(name, bound, rel, rhs, c_high, simplices=False, **extra):
    def sample(ctx, gen):
        batch = ctx.pick(quick=100 if simplices else 400, full=2000)
        shapes = [(2, 1), (3, 2), (8, 3), (32, 16), (128, 64)] + [(k, 0) for k in (2, 3, 8, 32) if simplices]
        for count, d in shapes:
            scale = sampling.log_uniform(ctx, gen, batch, 1, 1, low=1e-3, high=1e3)
            x = (sampling.gaussian(ctx, gen, batch, count, d) if d else
                 ctx.tensor(torch.eye(count)).expand(batch, count, count) / math.sqrt(2.0))
            yield {"x": x * scale, "c": sampling.log_uniform(ctx, gen, batch, low=1e-6, high=c_high)}

    def strategy(ctx):
        from hypothesis import strategies as st

        def separated(x):
            dist = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))
            return dist[~np.eye(len(x), dtype=bool)].min() >= 1e-3

        points = sampling.point_sets(n=(2, 6), d=(1, 3)).filter(separated)
        return st.tuples(points, sampling.log_uniform_floats(1e-6, c_high)).map(
            lambda pc: {"x": ctx.tensor(pc[0])[None], "c": ctx.tensor([pc[1]])})

    return Relation(
        name=name, lhs="eff-rank(K)", rel=rel, rhs=rhs, evaluate=_gap(bound), sample=sample,
        strategy=strategy, tolerance=TOL, **extra,
        sampler=("Gaussian point sets, (n, d) ∈ {(2,1), (3,2), (8,3), (32,16), (128,64)}"
                 + (", and regular simplices with n ∈ {2, 3, 8, 32}" if simplices else "")
                 + ", scaled by a log-uniform factor in [1e-3, 1e3]; d_min = their minimum distance; "
                 f"ε = c·d_min²/(n−1) with c log-uniform in [1e-6, {c_high:g}]; Hypothesis: one set "
                 "of n ∈ [2, 6] points in d ∈ [1, 3], coordinates in [−10, 10], distances ≥ 1e-3"))


def _frobenius_check(c_high, simplices):
    return _relation("frobenius-lower-bound", "frobenius", ">=", "n/(1 + ε²(n−1)/(d_min²+ε)²)",
                     c_high, simplices, role="proof", step="frobenius", max_examples=50)


def _witness_text(evidence, name):
    w = next((e["witness"] for e in evidence if e["name"] == name), None)
    shape = w and w["inputs"]["x"]["shape"]
    return w and f" ({name}: n = {shape[-2]}, d = {shape[-1]}, eff-rank = {w['lhs']:.6g} > {w['rhs']:.6g})"


SMALL_EPS = Claim(
    id="georesolver/theorem-2.8/small-eps", label=LABEL + "small-ε case", section="§2.7",
    statement=STATEMENT_SMALL, clauses=CLAUSES_SMALL, reading=READING_SMALL,
    reading_why="the literal statement, with its hypothesis", kind="inequality", derivation=derivation,
    proof_steps=PROOF_STEPS,
    checks=(_relation("paper-bound", "paper", "<=", "1 + nε²/d_min⁴", HYPOTHESIS),
            _frobenius_check(HYPOTHESIS, False)),
    correction=lambda evidence: (
        "With E = K − ε⁻¹I (E_ij = K_ij off the diagonal), eff-rank(K) = n/(1 + ε²‖E‖_F²/n), so "
        "n/(1 + ε²(n−1)/(d_min²+ε)²) ≤ eff-rank(K) ≤ n; under ε(n−1)/d_min² ≤ 1/2 that is "
        "eff-rank(K) > 4n(n−1)/(4n−3) > n − 1/2: the kernel is essentially full rank, and "
        "eff-rank(K) ≤ 1 + nε²/d_min⁴ fails for every admissible configuration with n ≥ 2."
        + (_witness_text(evidence, "paper-bound") or "")),
    notes=("The proof defines E = K − ε⁻¹I, then uses E_ij = 1/(‖·‖²+ε) − 1/ε off the diagonal "
           "(false: E_ij = K_ij there), turns an upper bound on ‖E‖_F into an upper bound on "
           "eff-rank (the direction is reversed), and its refined bound tends to 1 as ε → 0 where "
           "eff-rank tends to n. frobenius-lower-bound checks the Frobenius estimate of Lemma 0 "
           "(§5, which restates this theorem), ‖E‖_F² ≤ n(n−1)/(d_min²+ε)², through the exact "
           "eff-rank formula: the suite's corrected lower bound, attained by the simplex."),
)


# ══ general case ══


def general_derivation():
    lower_exact = COUNT / (1 + eps**2 * (COUNT - 1) / (dmin**2 + eps) ** 2)
    lower_c, unit = COUNT / (1 + c**2 / (COUNT - 1)), {c: 1 / (1 + t)}  # 0 < c < 1
    return [
        *_proof_steps(),
        *_spectrum_steps(),
        symbolic.holds("Lemma 0 (§5): ‖E‖_F² ≤ n(n−1)/(d_min²+ε)² (each K_ij² ≤ (d_min²+ε)⁻²)",
                       _le(1 / (dmin**2 + t + eps) ** 2, 1 / (dmin**2 + eps) ** 2), role="proof",
                       step="lemma0-frobenius",
                       note="through eff-rank = n/(1+ε²‖E‖_F²/n) a lower bound on eff-rank"),
        symbolic.holds("the suite: ε²(n−1)/(d_min²+ε)² ≤ c²/(n−1), so eff-rank ≥ n/(1+c²/(n−1))",
                       _le(eps**2 * (COUNT - 1) / (dmin**2 + eps) ** 2, c**2 / (COUNT - 1),
                           {eps: c * dmin**2 / (COUNT - 1)}), role="derivation"),
        symbolic.holds("the proof's eff-rank ≤ n/(1+ε²(n−1)/d_min⁴) is compatible with eff-rank ≥ "
                       "n/(1+ε²(n−1)/(d_min²+ε)²)",
                       _le(lower_exact, COUNT / (1 + eps**2 * (COUNT - 1) / dmin**4)), role="proof",
                       step="intermediate",
                       note="false for every ε > 0: the lower bound exceeds the proof's bound"),
        symbolic.holds("as rendered: eff-rank ≤ n(1−c)² is compatible with eff-rank ≥ n/(1+c²/(n−1)) "
                       "(0 < c < 1)", _le(lower_c, COUNT * (1 - c) ** 2, unit), role="statement",
                       note="false for every 0 < c < 1 and n > 2: every admissible configuration"),
        symbolic.holds("a lost fraction bar: eff-rank ≤ n ≤ n/(1−c)² (0 < c < 1)",
                       _le(COUNT, COUNT / (1 - c) ** 2, unit), role="statement",
                       reading="fraction-bar", note="true, and never below the trivial bound n"),
        symbolic.holds("the direction reversed: n(1−c)² ≤ n/(1+c²/(n−1)) ≤ eff-rank (0 < c < 1)",
                       _le(COUNT * (1 - c) ** 2, lower_c, unit), role="statement", reading="reversed"),
    ]


GENERAL = Claim(
    id="georesolver/theorem-2.8/general", label=LABEL + "general case; Lemma 0 (§5) restates it",
    section="§2.7", statement=STATEMENT_GENERAL, clauses=CLAUSES_GENERAL, reading=READING_GENERAL,
    proof_steps=PROOF_STEPS + LEMMA_0,
    proof_gap=("neither proof derives the general bound: Theorem 2.8's computes the Gershgorin interval "
               "and never uses it; Lemma 0 says only that it 'follows from the effective rank formula'"),
    reading_why=("the formula as rendered, identically in the LaTeX copy and again in Lemma 0 "
                 "(§5), on the domain where it is a bound below n"),
    alternatives=(
        Reading("fraction-bar", "eff-rank(K) ≤ n/(1−c)² for 0 < c < 1",
                "this rendering drops fraction bars elsewhere (the proof's n/(1+ε²(n−1)/d_min⁴) "
                "renders as 'n1+ε2(n−1)/dmin4'), and the proof's Gershgorin interval gives it"),
        Reading("reversed", "eff-rank(K) ≥ n(1−c)² for 0 < c < 1",
                "Lemma 0 says the general bound 'follows from the effective rank formula', which "
                "with its Frobenius estimate gives a lower bound"),
    ),
    kind="inequality", derivation=general_derivation,
    checks=(
        _relation("literal-upper-bound", "literal", "<=", "n(1 − ε(n−1)/d_min²)²", BELOW_ONE, True),
        _relation("proof-intermediate-upper-bound", "intermediate", "<=", "n/(1 + ε²(n−1)/d_min⁴)",
                  ANY, True, role="proof", step="intermediate"),
        _relation("fraction-upper-bound", "fraction", "<=", "n/(1 − ε(n−1)/d_min²)²", BELOW_ONE,
                  True, reading="fraction-bar", max_examples=50),
        _relation("reversed-lower-bound", "literal", ">=", "n(1 − ε(n−1)/d_min²)²", BELOW_ONE, True,
                  reading="reversed", max_examples=50, controls=(control(
                      "softmax kernel exp(x_i·x_j/√d) in place of IDA's", contrast="operator",
                      evaluate=_gap("literal", _softmax_rank), strategy=None),)),
        _frobenius_check(ANY, True),
    ),
    correction=lambda evidence: (
        "In general n/(1 + ε²(n−1)/(d_min²+ε)²) ≤ eff-rank(K) ≤ n (Lemma 0's Frobenius estimate "
        "used in the right direction, and Cauchy–Schwarz). For c = ε(n−1)/d_min² < 1, n(1−c)² is a "
        "lower bound on eff-rank, not an upper bound; the only upper bound of this shape that "
        "holds, n/(1−c)², is never below n. No upper bound below n holds in general."
        + (_witness_text(evidence, "literal-upper-bound") or "")),
    time_limit_s=30,
    notes=("Neither proof derives the general bound: Theorem 2.8's proof computes the Gershgorin "
           "interval λ_m(K) ∈ [1/ε − (n−1)/d_min², 1/ε + (n−1)/d_min²] and never uses it, and Lemma "
           "0 says it 'follows from the effective rank formula', which with its own Frobenius "
           "estimate gives a lower bound. fraction-bar is true but vacuous (≥ n, which every "
           "kernel meets), so no control can fail it and it stays inconclusive."),
)


# ══ width independence ══

WIDTH_COUNT = 32  # n for the width families
GAP_EPS = 1.0  # ε of the rank-gap family (σ = 1): ε(n−1)/d_min² ≤ 1/2 holds from d_h = 2⁷ on
EDGE = 1 / (2 * (WIDTH_COUNT - 1))  # ε at the hypothesis' edge for d_min = 1


def gaussian_points_in_width(ctx, gen, tag, batch, count, width):
    """``count`` i.i.d. N(0, I_width) points up to a rotation, ``(batch, count, min(count, width))``:
    R in Z = QR for a Gaussian width × count Z (Bartlett: R_ii ~ χ_(width−i), N(0, 1) above)."""
    dim = min(count, width)
    upper = sampling.gaussian(ctx, gen, batch, dim, count).triu(1)
    dof = np.broadcast_to(width - np.arange(dim), (batch, dim)).astype(float)
    upper[:, range(dim), range(dim)] = ctx.tensor(np.sqrt(ctx.numpy_rng(tag).chisquare(dof)))
    return upper.transpose(-1, -2)


def _widening_gap(case):
    """eff-rank(K) of the points in R^(4d) against that of their first d coordinates, with one
    ε = c·d_min²/(n−1) (d_min at width d, so the hypothesis holds at both widths)."""
    x, narrow, frac = case["x"], int(case["narrow"]), case["c"]
    count = x.shape[-2]
    e = frac * sampling.min_pairwise_squared_distance(x[..., :narrow]) / (count - 1)
    wide = _ida_rank(x, e)
    return wide, _ida_rank(x[..., :narrow], e), TOL(count**2 * wide)


def _sample_widening(ctx, gen):  # see the relation's sampler
    for count, width in ((8, 2), (32, 2), (32, 8), (32, 32), (32, 128)):
        batch = ctx.pick(quick=100, full=1000)
        yield {"x": sampling.gaussian(ctx, gen, batch, count, 4 * width), "narrow": width,
               "c": sampling.log_uniform(ctx, gen, batch, low=1e-3, high=HYPOTHESIS)}


def _over_width(scaled):
    def sample(ctx, gen):
        batch = ctx.pick(quick=100, full=1000)
        for width in (2, 8, 32, 128, 512, 2048):
            x = gaussian_points_in_width(ctx, gen, f"over-width:{width}", batch, WIDTH_COUNT, width)
            d2 = sampling.min_pairwise_squared_distance(x)
            yield ({"x": x / d2.sqrt()[:, None, None],
                    "c": sampling.log_uniform(ctx, gen, batch, low=1e-6, high=HYPOTHESIS)}
                   if scaled else {"x": x, "c": (WIDTH_COUNT - 1) / d2})  # ε = 1

    return sample


WIDTH_REPLICATES = 8


def _width_measure(kind):
    def measure(ctx, grid):
        """Per width, the mean over 32 (full 256) sets of n = 32 Gaussian points (one replicate of
        WIDTH_REPLICATES): "gap", n − eff-rank at σ = 1, ε = GAP_EPS (within the hypothesis:
        checked); "scaled" / "unscaled", eff-rank at ε = EDGE with the points rescaled to d_min = 1
        or not."""
        batch, gen, rows = ctx.pick(quick=32, full=256), ctx.generator(kind), []
        for width in grid:
            x = gaussian_points_in_width(ctx, gen, f"{kind}:{width:g}", batch, WIDTH_COUNT, int(width))
            d2 = sampling.min_pairwise_squared_distance(x)
            if kind == "gap" and bool((GAP_EPS * (WIDTH_COUNT - 1) > HYPOTHESIS * d2).any()):
                raise ValueError(f"the rank-gap family leaves the hypothesis at d_h = {width:g}")
            rows.append(WIDTH_COUNT - _ida_rank(x, GAP_EPS) if kind == "gap" else
                        _ida_rank(x / d2.sqrt()[:, None, None] if kind == "scaled" else x, EDGE))
        return torch.stack(rows).mean(dim=1).cpu().numpy()

    return measure


def width_derivation():
    delta2 = sp.Symbol("delta2", positive=True)
    K = sp.eye(4) / eps + (sp.ones(4, 4) - sp.eye(4)) / (delta2 + eps)
    return [
        symbolic.holds("widening does not raise eff-rank: ∂eff-rank/∂a ≤ 0 for every off-diagonal "
                       "squared distance a (appending coordinates raises every a)",
                       _le(sp.diff(_rank_of(F + 2 / (a + eps) ** 2), a), 0), role="statement",
                       note="eff-rank = n/(1+ε²Σ_{i≠j}(a_ij+ε)⁻²/n) increases with every a_ij"),
        symbolic.holds("§2.8: the bound 1 + nε²/d_min⁴ tightens as d_min grows",
                       _le(sp.diff(1 + n * eps**2 / dmin**4, dmin), 0), role="proof", step="tighter"),
        _compatibility("proof", step="bound"),
        symbolic.exact("equidistant points (δ² apart): eff-rank = n/(1+ε²(n−1)/(δ²+ε)²) (n = 4), "
                       "d_h-free: the d_h → ∞ limit at fixed d_min",
                       4 / (1 + eps**2 * 3 / (delta2 + eps) ** 2), K.trace() ** 2 / (K * K).trace(),
                       role="statement", reading="dmin-fixed"),
    ]


UNSCALED = "points unscaled, σ = 1 and ε = 1 (eff-rank rises towards n with d_h)"

WIDTH = Claim(
    id="georesolver/theorem-2.8/width-independence", label=LABEL + "width independence", section="§2.7",
    statement=STATEMENT_WIDTH, clauses=CLAUSES_WIDTH, reading=READING_WIDTH, proof_steps=PROOF_WIDTH,
    reading_why=("Theorem 3's width independence is its contrast with softmax, whose capacity "
                 "grows with width (§1.2, Theorem 2.9), and §2.8 says the bound tightens as d_h "
                 "grows; eff-rank ≤ n, or any bound in n, ε, d_min and d_max, holds for every "
                 "point set at every width and so cannot be what is claimed"),
    alternatives=(
        Reading("sandwich", "At every width, eff-rank(K) lies between the d_h-free bounds "
                "n/(1+ε²(n−1)/(d_min²+ε)²) and n/(1+ε²(n−1)/(d_max²+ε)²) (the earlier reading)",
                "'bounded independent of d_h' read as bounds whose formulas contain no d_h"),
        Reading("dmin-fixed", "With n, ε and d_min held fixed (points rescaled to d_min = 1, ε at "
                "the hypothesis' edge), the mean eff-rank does not grow with d_h: width enters "
                "only through d_min", "the theorem's bound depends on d_h only through d_min, "
                                      "which §2.8 names as the way width acts"),
    ),
    kind="inequality", derivation=width_derivation,
    checks=(
        Relation(
            name="rank-not-raised-by-widening", lhs="eff-rank(K), the points in R^(4d_h)", rel="<=",
            rhs="eff-rank(K), their first d_h coordinates", evaluate=_widening_gap, sample=_sample_widening,
            tolerance=TOL,
            sampler=("Gaussian points (σ = 1), (n, d_h) ∈ {(8,2), (32,2), (32,8), (32,32), (32,128)}, "
                     "widened to 4d_h coordinates (the first d_h kept); ε = c·d_min²/(n−1) at width "
                     "d_h, c log-uniform in [1e-3, 1/2], so the hypothesis holds at both widths")),
        ScalingLaw(
            name="rank-gap-vs-width", quantity="n − eff-rank(K)", variable="d_h", exponent=0.0,
            order="Ω", grid=grids.fixed(grids.geometric(2**7, 2, 11)), measure=_width_measure("gap"),
            family=("typical: n = 32 points i.i.d. N(0, I_(d_h)) (Bartlett-sampled distances), "
                    "ε = 1, d_h = 2⁷ … 2¹⁷; the hypothesis holds for every set (checked); mean over "
                    "32 (full 256) sets per width, 8 replicates"),
            tolerance=tolerances.Systematic(0.05, "the O(1/d_h) correction to the gap's leading "
                                                  "d_h⁻² term over the grid"),
            replicates=WIDTH_REPLICATES, predicted="Ω(d_h^0): the gap to full rank does not close"),
        Relation(
            name="dmax-upper-bound-over-width", lhs="eff-rank(K)", rel="<=",
            rhs="n/(1 + ε²(n−1)/(d_max²+ε)²)", evaluate=_gap("dmax"), sample=_over_width(True),
            tolerance=TOL, reading="sandwich",
            controls=(control(UNSCALED, contrast="setting", sample=_over_width(False)),),
            sampler=("n = 32 Gaussian points in R^(d_h), d_h ∈ {2, 8, 32, 128, 512, 2048} (Bartlett), "
                     "rescaled to d_min = 1, ε = c·d_min²/(n−1), c log-uniform in [1e-6, 1/2]")),
        Relation(
            name="corrected-lower-bound-over-width", lhs="eff-rank(K)", rel=">=",
            rhs="n/(1 + ε²(n−1)/(d_min²+ε)²)", evaluate=_gap("frobenius"), sample=_over_width(True),
            tolerance=TOL, reading="sandwich", sampler="as dmax-upper-bound-over-width",
            controls=(control(UNSCALED, contrast="setting", sample=_over_width(False)),)),
        ScalingLaw(
            name="eff-rank-vs-width-dmin-fixed", quantity="mean eff-rank(K)", variable="d_h",
            exponent=0.0, order="O", grid=grids.fixed(grids.geometric(2, 2, 11)),
            measure=_width_measure("scaled"), reading="dmin-fixed", predicted="O(d_h^0): not growing",
            replicates=WIDTH_REPLICATES,
            family=("n = 32 points i.i.d. N(0, I_(d_h)) rescaled to d_min = 1, ε = 1/(2(n−1)) "
                    "(c = 1/2), d_h = 2 … 2048; mean over 32 (full 256) sets per width, 8 replicates"),
            tolerance=tolerances.Exact("the order bound is read on the fitted interval itself; "
                                       "the Monte-Carlo error enters through the replicates"),
            controls=(control("points unscaled (σ = 1: d_min grows with d_h), same ε",
                              contrast="hypothesis", hypothesis="d_min held fixed",
                              measure=_width_measure("unscaled")),)),
    ),
    time_limit_s=30,
    notes=("Width acts through d_min, which grows with d_h for random embeddings: as it grows (ε "
           "fixed) every K_ij off the diagonal shrinks and eff-rank rises towards n, the opposite of "
           "a bound that tightens. The sandwich bounds hold at every width, also where eff-rank "
           "rises with d_h (their control), so they cannot show width independence; with d_min "
           "held fixed eff-rank does not grow. Whether 1 + nε²/d_min⁴ holds is theorem-2.8/small-eps."),
)

CLAIMS = (SMALL_EPS, GENERAL, WIDTH)
