"""GeoResolver §2.7, Theorem 2.9 (Softmax Width Catastrophe). The proof's construction (inputs e_1..e_n,
q_i = √d_h e_i, k_j = α√d_h e_j, random values, readout w·v_i = ỹ_i) run on many random tasks with symmetric
label noise: zero training error located by a bracket search on α, test errors compared with 2η by
Monte-Carlo intervals."""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
import torch

from attnaudit import operators
from attnaudit.checks import (
    Claim,
    Clause,
    ProofStep,
    Reading,
    Relation,
    ScalingLaw,
    control,
    grids,
    montecarlo,
    symbolic,
    tolerances,
)
from attnaudit.checks.bisection import bisect_monotone
from attnaudit.checks.fitting import closed_form_bias

# ══ the statement, as the paper gives it, and the reading tested ══
STATEMENT = (r"\text{When } d_h\ge n, \text{ softmax can achieve zero training error on arbitrary labels, "
             r"with test error } \to 2\eta \text{ under symmetric noise rate } \eta.")
CLAUSES = (
    Clause("zero-training-error", "softmax can achieve zero training error on arbitrary labels"),
    Clause("test-error", "with test error →2η"),
)
READING = ("The proof's construction (q_i = √d_h e_i, k_j = α√d_h e_j, random values v_j ∈ R^n, linear "
           "readout w·v_i = ỹ_i, softmax of the raw scores as the proof's W states), d_h ≥ n: (1) it "
           "reaches zero training error on every labelling, at every α above a finite threshold; (2) "
           "its test error — the proof's 'expected error on clean labels' of the memorised predictor, "
           "at the training inputs — tends to 2η under symmetric noise η, binary and multi-class.")
READING_WHY = ("the statement leaves 'test error' undefined; the proof defines it as the expected "
               "error on clean labels of its construction, binary or multi-class")
PROOF = (
    ProofStep("scores", "Then the inner product is: i⊤j=αdhδij"),
    ProofStep("weights", "Wij=eαdhδij∑meαdhδim=eαdheαdh+(n−1),i=j,1eαdh+(n−1),i≠j"),
    ProofStep("identity-limit", "the weights converge to the identity matrix: Wij→δij"),
    ProofStep("output", "Therefore the output is i=∑jWijj→i"),
    ProofStep("readout", "then there exists a w satisfying ⊤i=yiw v_i=y_i for all i"),
    ProofStep("memorised", "Zero training error implies the model has memorized the noisy labels"),
    ProofStep("bayes-binary", "which equals the Bayes error under symmetric noise: η for binary "
                              "classification"),
    ProofStep("bayes-multiclass", "or 2η2η for balanced multi-class classification"),
)
ALTERNATIVES = (
    Reading("noisy-test-labels", "The test error is measured on fresh inputs e_c + σu near the training "
            "inputs against labels that carry the same symmetric noise; it tends to 2η.",
            "empirical test error is usually measured on noisy held-out labels"),
    Reading("first-order", "With noisy test labels the test error is 2η to first order in η: 2η + O(η²) "
            "as η → 0.", "'→ 2η' read loosely as the small-η value"),
    Reading("unbounded-rank", "At the least α that fits every labelling, eff-rank(W) grows like n (§3's "
            "table: softmax effective rank 'Unbounded').",
            "the summary table lists this theorem's softmax effective rank as unbounded"),
)

# ══ the mathematics ══
ETAS = (0.02, 0.05, 0.1, 0.2, 0.3, 0.4)
CONFIGS = ((8, 8), (8, 64), (32, 32), (32, 128), (128, 128), (128, 256))  # (n, d_h), d_h ≥ n
MULTI_CLASSES = 10  # the balanced multi-class case of the proof
FRESH_SIGMA = 0.1  # fresh test input e_c + σu, u uniform on the unit sphere of R^{d_h}
SEARCH = {"candidates": 63, "rounds": 7}  # bracket search on a = αd_h
THRESHOLD_CONFIGS = ((2, 2), (3, 5), (8, 8), (8, 64), (32, 32), (64, 64))
MC = tolerances.MonteCarlo("the mean error rate over independent random tasks", confidence=0.999,
                           comparisons=len(CONFIGS) * len(ETAS))
SEARCH_TOL = tolerances.Roundoff(
    condition="n² (the margin (e^a − m)/(e^a + n − 1) is formed to u·n and moves at rate ≥ 1/n in "
              "a = αd_h), plus the search's resolution (bracket span)/(K+1)^R, both divided by d_h")
RANK_GRID = grids.log_integer_grid(2, 2048, quick=11, full=41)  # powers of 2 (quick), 4 per octave (full)
RANK_TOL = tolerances.FitBias(lambda: max((closed_form_bias(g, g - 1, 1.0) for g in RANK_GRID.profiles),
                                          key=abs), "the exact eff-rank n − 1 at α* on the n-grid")


n, d_h, alpha, eta, a, m = sp.symbols("n d_h alpha eta a m", positive=True)
K = sp.Symbol("K", positive=True, integer=True)


def derivation():
    scores = (sp.sqrt(d_h) * sp.eye(3)) * (alpha * sp.sqrt(d_h) * sp.eye(3)).T  # n = 3 shown
    w_ii, w_ij = sp.exp(alpha * d_h) / (sp.exp(alpha * d_h) + n - 1), 1 / (sp.exp(alpha * d_h) + n - 1)
    row = [sp.exp(scores[0, j]) for j in range(3)]
    vs, ys = sp.Matrix(3, 3, sp.symbols("v0:9", real=True)), sp.Matrix(sp.symbols("y0:3", real=True))
    readout = (vs * vs.adjugate()).applyfunc(sp.expand) * ys / sp.expand(vs.det())  # V(V⁻¹y)
    weights = sp.Matrix(3, 3, lambda i, j: (w_ii if i == j else w_ij).subs(n, 3))
    margin = lambda t: (sp.exp(a) + t) / (sp.exp(a) + n - 1)  # noqa: E731 - y_iŷ_i, t = y_iΣ_{j≠i}y_j
    eff = (n * m) ** 2 / (n * m**2 + n * (n - 1) * ((1 - m) / (n - 1)) ** 2)  # W_ii = m
    clean_error = (K - 1) * (eta / (K - 1))  # P(ỹ_i ≠ y_i): η/(K−1) per other class
    noisy = {2: 1 - ((1 - eta) ** 2 + eta**2), K: 1 - ((1 - eta) ** 2 + (K - 1) * (eta / (K - 1)) ** 2)}
    P, S, D, E = "proof", "statement", "derivation", symbolic.exact
    zero, test = "zero-training-error", "test-error"
    return [
        E("q_i·k_i = αd_h", alpha * d_h, scores[0, 0], role=P, step="scores"),
        E("q_i·k_j = 0 (i ≠ j)", sp.Integer(0), scores[0, 1], role=P, step="scores"),
        E("W_ii = e^{αd_h}/(e^{αd_h}+n−1) with raw scores q·k (n = 3)", w_ii.subs(n, 3), row[0] / sum(row),
          role=P, step="weights",
          note="the proof uses raw scores; §2.4 Step 5 and Theorem 2.2 divide by √d_h "
               "(e^{α√d_h}): a convention, W → I as α → ∞ under both (next steps)"),
        E("W_ij = 1/(e^{αd_h}+n−1), i ≠ j, raw scores (n = 3)", w_ij.subs(n, 3), row[1] / sum(row), role=P,
          step="weights"),
        symbolic.limit("W_ii → 1 as α → ∞ (raw scores)", w_ii, alpha, sp.oo, 1, role=P,
                       step="identity-limit"),
        symbolic.limit("W_ij → 0 as α → ∞ (raw scores)", w_ij, alpha, sp.oo, 0, role=P,
                       step="identity-limit"),
        symbolic.limit("W_ii → 1 as α → ∞ (scores q·k/√d_h)", w_ii.subs(d_h, sp.sqrt(d_h)), alpha,
                       sp.oo, 1, role=D),
        E("ŷ_i = w·o_i = Σ_j W_ij y_j at finite α (so ŷ_i → y_i as α → ∞)", (weights * ys)[0],
          (weights * readout)[0], role=P, step="output"),
        E("readout: w = V⁻¹y = adj(V)y/det V solves w·v_i = y_i (generic V, n = d_v = 3)", ys[0],
          readout[0], role=P, step="readout"),
        E("worst-case margin: min over labellings of y_iŷ_i = (e^a−(n−1))/(e^a+n−1), a = αd_h",
          (sp.exp(a) - (n - 1)) / (sp.exp(a) + n - 1), margin(-(n - 1)), role=S, clause=zero,
          note="y_iŷ_i = (e^a + y_iΣ_{j≠i}y_j)/(e^a+n−1), least at y_iΣ_{j≠i}y_j = −(n−1): zero "
               "training error on every labelling iff e^{αd_h} > n−1"),
        E("finite threshold (the proof only takes α → ∞): α* = ln(n−1)/d_h", sp.log(n - 1) / d_h,
          sp.solve(sp.Eq(sp.exp(alpha * d_h), n - 1), alpha)[0], role=S, clause=zero),
        E("proof: the memorised labels err against clean labels with P = η", eta, clean_error, role=P,
          step="bayes-binary"),
        E("statement: test error → 2η, against the memoriser's clean-label error η", 2 * eta, clean_error,
          role=S, clause=test, note="the statement and the proof's own binary value differ by a factor 2"),
        E("proof: Bayes error under symmetric noise is 2η for balanced K-class", 2 * eta, clean_error,
          role=P, step="bayes-multiclass",
          note="the Bayes error (η < (K−1)/K) and the memoriser's error are both η"),
        E("noisy test labels: 2η against the memoriser's 2η(1−η) (binary)", 2 * eta, noisy[2], role=S,
          reading="noisy-test-labels"),
        E("noisy test labels: 2η against the memoriser's 2η − Kη²/(K−1) (K classes)", 2 * eta, noisy[K],
          role=S, reading="noisy-test-labels"),
        *[symbolic.leading_order(f"2η is the leading order as η → 0 (noisy test labels, {kind})", noisy[k],
                                 eta, 2 * eta, point=0, up_to_constant=False, role=S, reading="first-order")
          for k, kind in ((2, "binary"), (K, "K classes"))],
        E("eff-rank(W) at α*: W_ii = 1/2 gives (tr W)²/ΣW_ij² = n − 1", n - 1,
          sp.factor(sp.simplify(eff.subs(m, sp.Rational(1, 2)))), role=S, reading="unbounded-rank"),
    ]


def simulate(count, width, classes, trials, seed, device, dtype):
    """The construction on ``trials`` random tasks per η (common random numbers across η): random
    classes on e_1..e_n, each flipped w.p. η to a uniform other class; v_j ~ N(0, I_n); readout
    V w = ỹ (±1) or onehot(ỹ); α = ln(2(n−1))/d_h (W_ii = 2/3: margin ≥ 1/3). Fresh inputs e_c + σu
    carry e_c's clean label or an independent flip of it. Returns ``(E, T)`` error rates ``clean``
    (training inputs), ``fresh_clean``, ``fresh_noisy`` and ``(E,)`` training-error counts."""
    gen = torch.Generator(device=device).manual_seed(seed)
    ints = lambda high, *s, low=0: torch.randint(low, high, s, generator=gen, device=device)  # noqa: E731
    rand = lambda *s: torch.rand(s, generator=gen, dtype=dtype, device=device)  # noqa: E731
    clean, u_flip = ints(classes, trials, count), rand(trials, count)
    offset = ints(classes, trials, count, low=1)
    values = torch.randn(trials, count, count, generator=gen, dtype=dtype, device=device)
    centre, u_test = ints(count, trials, count), rand(trials, count)
    offset_test = ints(classes, trials, count, low=1)
    u = torch.randn(trials, count, width, generator=gen, dtype=dtype, device=device)
    u = u / torch.linalg.vector_norm(u, dim=-1, keepdim=True)
    eta = torch.tensor(ETAS, dtype=dtype, device=device)
    noisy = (clean[..., None] + (u_flip[..., None] < eta) * offset[..., None]) % classes
    target = ((1 - 2 * noisy).to(dtype) if classes == 2 else
              torch.nn.functional.one_hot(noisy, classes).to(dtype).flatten(-2))
    readout = torch.linalg.solve(values, target)
    basis, root = torch.eye(count, width, dtype=dtype, device=device), math.sqrt(width)
    keys = math.log(2 * (count - 1)) / width * root * basis

    def predict(inputs):  # scale=1: the proof's weights e^{q·k}/Σe^{q·k} (raw scores)
        pred = operators.softmax_attention(root * inputs, keys, values, scale=1.0) @ readout
        if classes > 2:
            return pred.unflatten(-1, (len(ETAS), classes)).argmax(-1)
        return torch.where(pred > 0, 0, torch.where(pred < 0, 1, -1))  # a tie is wrong

    train, fresh = predict(basis), predict(basis[centre] + FRESH_SIGMA * u)
    fresh_clean = clean.gather(1, centre)
    fresh_noisy = (fresh_clean[..., None] + (u_test[..., None] < eta) * offset_test[..., None]) % classes
    rate = lambda wrong: wrong.to(dtype).mean(dim=1).T  # noqa: E731 - (T, n, E) → (E, T)
    return {"clean": rate(train != clean[..., None]), "fresh_noisy": rate(fresh != fresh_noisy),
            "fresh_clean": rate(fresh != fresh_clean[..., None]),
            "train": (train != noisy).sum(dim=(0, 1)).to(dtype)}


def sample_tasks(classes: int):
    """Per (n, d_h), one case per η: the task parameters (the seed reproduces them by ``simulate``)
    and the per-task error rates, computed once per run."""

    def sample(ctx, gen):  # noqa: ARG001 - every relation of the claim sees the same tasks
        for count, width in CONFIGS:
            seed = ctx.seed_for(f"tasks:{classes}:{count}:{width}")
            trials = max(ctx.pick(quick=8192, full=32768) // count, 2)
            run = ctx.cached(("tasks", classes, count, width), lambda c=count, w=width, s=seed, t=trials:
                             simulate(c, w, classes, t, s, ctx.device, ctx.dtype))
            yield {"eta": ctx.tensor(ETAS), "n": count, "d_h": width, "classes": classes,
                   "trials": trials, "seed": seed} | run

    return sample


def error_gap(figure: str, prediction):
    """Mean error rate of ``figure`` against ``prediction(η, K)``, within the Monte-Carlo interval."""

    def evaluate(case):
        est = montecarlo.mean(case[figure], MC, axis=1)
        value, high = torch.tensor([(e.value, e.high) for e in est], dtype=case["eta"].dtype).T
        return value, prediction(case["eta"], case["classes"]), high - value

    return evaluate


TWO_ETA = lambda e, k: 2 * e  # noqa: E731
ETA = lambda e, k: e  # noqa: E731
NOISY = lambda e, k: 2 * e - k * e**2 / (k - 1)  # noqa: E731 - 2η(1−η) for k = 2
CLEAN_CONTROL = control("clean test labels in place of noisy ones (the memoriser's error is η)",
                        contrast="hypothesis", hypothesis="the test labels carry the same noise",
                        evaluate=error_gap("fresh_clean", NOISY), lhs="test error (fresh clean labels)")


def _sampler(classes: int) -> str:
    return (f"{'binary ±1' if classes == 2 else f'balanced {classes}-class'} random labels on "
            f"e_1..e_n, noise η ∈ {ETAS}; (n, d_h) ∈ {CONFIGS}; 8192/n (full 32768/n) tasks each; "
            f"α = ln(2(n−1))/d_h; n fresh inputs e_c + {FRESH_SIGMA}u per task")


def _error(name, figure, classes, prediction, rhs, *, role="statement", reading=None, controls=(), **tags):
    return Relation(name=name, lhs=f"test error ({figure.replace('_', ' ')} labels)", rel="==", rhs=rhs,
                    evaluate=error_gap(figure, prediction), sample=sample_tasks(classes), tolerance=MC,
                    sampler=_sampler(classes), reading=reading, role=role, controls=controls, **tags)


def _fits_all(a_value, labels, width: int):
    """Whether the construction at α = a/d_h fits every label, for ``(B, K)`` candidates a per
    labelling ``(B, n)``; values = labels (ŷ_i = Σ_j W_ij y_j, the readout's output by the
    derivation); α multiplies the queries, which leaves every score αd_hδ_ij unchanged."""
    many, count = a_value.shape[1], labels.shape[-1]
    basis = torch.eye(count, width, dtype=labels.dtype, device=labels.device)
    queries = (a_value / math.sqrt(width))[..., None, None] * basis
    pred = operators.softmax_attention(queries.flatten(1, 2), math.sqrt(width) * basis,
                                       labels[..., None], scale=1.0)[..., 0].unflatten(1, (many, count))
    return (torch.sign(pred) == labels[:, None, :]).all(dim=-1)


def threshold_gap(case, moved=False):
    """Searched threshold of zero training error against ln(max_i m_i)/d_h, m_i = −y_iΣ_{j≠i}y_j
    (``moved``: against ln(max_i m_i + 1)/d_h, the control's prediction)."""
    labels, width, count = case["labels"], case["d_h"], case["labels"].shape[-1]
    lo = torch.full(labels.shape[:1], -1.0, dtype=labels.dtype, device=labels.device)
    hi = torch.full_like(lo, math.log(count) + 1.0)  # above every threshold (m_i ≤ n − 1)
    _, found = bisect_monotone(lambda x: ~_fits_all(x, labels, width), lo, hi,
                               what="threshold of zero training error", **SEARCH)
    worst = (-(labels * (labels.sum(-1, keepdim=True) - labels))).amax(dim=-1) + float(moved)
    resolution = (math.log(count) + 2.0) / (SEARCH["candidates"] + 1) ** SEARCH["rounds"]
    return found / width, torch.log(worst) / width, (resolution + SEARCH_TOL(count**2, labels.dtype)) / width


def sample_labellings(ctx, gen):
    """Per (n, d_h): the worst labelling (+1, −1, …, −1) and random ±1 labellings whose first two
    labels are (+1, −1) (the all-equal labelling is fitted at every α: it has no threshold)."""
    batch = ctx.pick(quick=16, full=128)
    for count, width in THRESHOLD_CONFIGS:
        labels = 1 - 2 * torch.randint(0, 2, (batch, count), generator=gen, device=ctx.device)
        labels[:, :2] = torch.tensor([1, -1])
        labels[0, 2:] = -1
        yield {"labels": labels.to(ctx.dtype), "d_h": width}


def eff_rank_at_threshold(ctx, grid):
    """eff-rank(W) = (tr W)²/ΣW_ij² of the construction at α* = ln(n−1)/d_h, d_h = n. Every row of
    W is a permutation of the first (the construction is symmetric under permuting the basis), so
    tr W = nW_11 and ΣW_ij² = nΣ_jW_1j²: the operator's first row gives the exact value."""
    out = []
    for count in grid.astype(int):
        basis = torch.eye(int(count), dtype=ctx.dtype, device=ctx.device)
        keys = math.log(count - 1) / count * math.sqrt(count) * basis
        row = operators.softmax_weights(math.sqrt(count) * basis[:1], keys, scale=1.0)[0]
        out.append(float(count * row[0] ** 2 / row.square().sum()))
    return np.array(out)


CLAIMS = (
    Claim(
        id="georesolver/theorem-2.9", label="Theorem 2.9 (Softmax Width Catastrophe)", section="§2.7",
        statement=STATEMENT, clauses=CLAUSES, kind="construction", derivation=derivation,
        reading=READING, reading_why=READING_WHY, proof_steps=PROOF, alternatives=ALTERNATIVES,
        correction=lambda evidence: (
            "With d_h ≥ n the construction fits every labelling once e^{αd_h} > n−1 (raw scores). It "
            "memorises the noisy labels, so its test error against clean labels is η, binary and "
            "multi-class alike (the Bayes error); against noisy test labels it is 2η(1−η) (binary) "
            "or 2η − Kη²/(K−1) (K classes): '2η' only to first order in η."),
        checks=(
            Relation(
                name="train-error-threshold", lhs="α̂ (search: least α with zero training error)", rel="==",
                rhs="ln(max_i −y_iΣ_{j≠i}y_j)/d_h", evaluate=threshold_gap, sample=sample_labellings,
                tolerance=SEARCH_TOL,
                sampler=(f"(n, d_h) ∈ {THRESHOLD_CONFIGS}; per pair the worst labelling "
                         "(+1,−1,…,−1) and 15 (full 127) random ±1 ones starting (+1, −1)"),
                clause="zero-training-error",
                controls=(control("the threshold ln(max_i m_i + 1)/d_h predicted", contrast="prediction",
                                  evaluate=lambda case: threshold_gap(case, moved=True)),)),
            Relation(
                name="train-error-zero-random-labels", lhs="training errors (count over tasks and "
                "inputs)", rel="==", rhs="0", sample=sample_tasks(2),
                evaluate=lambda case: (case["train"], 0 * case["train"], 0.0),
                tolerance=tolerances.Exact("a count; the margin ≥ 1/3 dwarfs the readout's round-off"),
                sampler=_sampler(2), clause="zero-training-error"),
            _error("clean-error-vs-2eta", "clean", 2, TWO_ETA, "2η", clause="test-error"),
            _error("multiclass-clean-error-vs-2eta", "clean", MULTI_CLASSES, TWO_ETA, "2η",
                   clause="test-error"),
            _error("clean-error-vs-eta", "clean", 2, ETA, "η (the proof's binary value)", role="proof",
                   step="bayes-binary"),
            _error("fresh-clean-error-vs-eta", "fresh_clean", 2, ETA,
                   "η (the proof's binary value, fresh inputs)", role="proof", step="bayes-binary"),
            _error("multiclass-clean-error-vs-eta", "clean", MULTI_CLASSES, ETA,
                   "η (the memoriser's multi-class clean-label error, and the Bayes error)",
                   role="derivation"),
            _error("fresh-noisy-error-vs-2eta", "fresh_noisy", 2, TWO_ETA, "2η", reading="noisy-test-labels"),
            _error("fresh-noisy-error-vs-derived", "fresh_noisy", 2, NOISY, "2η(1−η)",
                   reading="first-order", controls=(CLEAN_CONTROL,)),
            _error("multiclass-noisy-error-vs-derived", "fresh_noisy", MULTI_CLASSES, NOISY,
                   "2η − Kη²/(K−1)", reading="first-order", controls=(CLEAN_CONTROL,)),
            ScalingLaw(
                name="softmax-eff-rank-vs-n", quantity="eff-rank(W) at α*", variable="n", exponent=1.0,
                order="Θ", grid=RANK_GRID, measure=eff_rank_at_threshold, tolerance=RANK_TOL,
                family="the proof's construction (deterministic), d_h = n, at α* = ln(n−1)/d_h (the "
                       "least α with zero training error on every labelling)",
                predicted="Θ(n) (derived; the table: 'unbounded')", reading="unbounded-rank",
                controls=(control("a bounded rank (exponent 0) predicted", exponent=0.0),)),
        ),
        time_limit_s=60.0,
        notes=("The proof ends with 'η for binary classification or 2η for balanced multi-class', the "
               "Bayes error. A memoriser's clean-label error is η for any number of classes, and so is "
               "the Bayes error: the multi-class value is the proof's first false step, and its binary "
               "value η contradicts the statement. The proof's raw scores q·k (the paper divides by √d_h "
               "elsewhere) are a convention: W → I either way. Zero training error holds at finite "
               "α > ln(n−1)/d_h, where W has effective rank n − 1."),
    ),
)
