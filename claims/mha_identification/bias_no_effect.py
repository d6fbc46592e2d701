"""mha-identification/bias-no-effect: the key bias has no effect on softmax attention, single- and
multi-head. The key bias adds q_i·b_K/√d_h to every logit of row i, a shift softmax removes; so the
output is unchanged by any b_K and its gradient with respect to b_K vanishes."""

from __future__ import annotations

import sympy as sp
import torch

from attnaudit import operators, symbolic, tolerances
from attnaudit.checks import Claim, Clause, Relation, control

from ._jacobian import PROOF_ABSENT

STATEMENT = (
    r"\text{Some bias terms can have no effect on softmax-based attention layers in both the single- "
    r"and multiple-head settings.}"
)
CLAUSES = (Clause("no-effect", "some bias terms can have no effect on softmax-based attention layers in "
                               "both the single- and multiple-head settings"),)
READING = (
    "'Some bias terms' read as the key bias (the catalogue's gist): for softmax multi-head "
    "attention with query, key, value and output biases, f(X) = Σ_h softmax((XW_Q^h + b_Q^h)"
    "(XW_K^h + b_K^h)^T/√d_h)(XW_V^h + b_V^h)W_O^h + b_O, for every H ≥ 1 (H = 1 the single-head "
    "setting), all parameters, all inputs and every δ: f(b_K + δ) = f(b_K), hence ∂L/∂b_K = 0 for "
    "every loss L of the output. Added by the suite: the sizes and distributions of the sampler "
    "(the identity is exact, so any generic family tests it).")

HEADS = (1, 2, 4, 8, 16)
D_H, N, DRAWS = 2, 5, 32
# Logits (d_h-term sums, plus the shift q·δ) are rounded to u·(|s| + |c|); softmax turns an absolute
# logit error e into a relative weight error ≤ 2e, and the output sums n weighted value rows per head.
OUT_TOL = tolerances.Roundoff(condition="(d_h + n + 8)·(1 + max|logit| + max|q·δ|/√d_h)",
                              scale="Σ_h max|v_j W_O^h| + max|b_O|")
# ∂L/∂b_K^h = Σ_ij ds_ij q_i/√d_h with Σ_j ds_ij = 0 exactly: the float sum cancels terms of size
# |ds_ij|·|q_i|/√d_h; each ds_ij = a_ij(g_ij − Σ_k a_ik g_ik) carries (n + 4) roundings.
GRAD_TOL = tolerances.Roundoff(condition="(2n + d_h + 8) (the cancelling sum of n² terms of ∂L/∂logits)",
                               scale="max_h Σ_ij |∂L/∂s_ij|·max_i|q_i|/√d_h")
PARAMS = ("wq", "wk", "wv", "wo", "bq", "bk", "bv", "bo")


def derivation():
    s = sp.symbols("s1:4", real=True)
    c = sp.Symbol("c", real=True)
    q, k, b = (sp.Matrix(sp.symbols(f"{n}1:3", real=True)) for n in ("q", "k", "b"))
    shifted = [sp.exp(si + c) / sum(sp.exp(sj + c) for sj in s) for si in s]
    plain = [sp.exp(si) / sum(sp.exp(sj) for sj in s) for si in s]
    return [
        symbolic.exact("q_i·(k_j + b_K) = q_i·k_j + q_i·b_K: the added term does not depend on j",
                       q.dot(k) + q.dot(b), q.dot(k + b), role="statement"),
        symbolic.exact("softmax_j(s_j + c) = softmax_j(s_j) (n = 3, first weight)", plain[0], shifted[0],
                       role="statement"),
        symbolic.exact("Σ_j ∂softmax_j/∂c = 0 along the shift: ∂/∂c Σ_j w_j(s + c) = 0",
                       sp.Integer(0), sp.simplify(sp.diff(sum(shifted), c)), role="statement"),
    ]


def _mha(x, p, **extra):
    q = dict(p) | extra
    return operators.mha_attention(x, q["wq"], q["wk"], q["wv"], q["wo"], bq=q["bq"], bk=q["bk"],
                                   bv=q["bv"], bo=q["bo"])


def _scales(case):
    """Per case: max|logit|, Σ_h max|v_j W_O^h| + max|b_O|, the queries (b, H, n, d_h), v W_O."""
    x, d_h = case["x"], case["wq"].shape[-1]
    proj = lambda w, b: torch.einsum("bnd,bhde->bhne", x, case[w]) + case[b][:, :, None, :]  # noqa: E731
    q, k, v = proj("wq", "bq"), proj("wk", "bk"), proj("wv", "bv")
    logit = (q @ k.transpose(-1, -2)).abs().flatten(1).amax(1) / d_h**0.5
    vo = torch.einsum("bhne,bhef->bhnf", v, case["wo"])
    return logit, vo.abs().flatten(2).amax(2).sum(1) + case["bo"].abs().amax(1), q, vo


def output_sides(case, target="bk"):
    """max|f(b_K + δ) − f(b_K)| (or the same with δ added to ``target``) against 0."""
    p, x, delta = {k: case[k] for k in PARAMS}, case["x"], case["delta"]
    f = torch.func.vmap(lambda x, p, e: _mha(x, p, **e))
    lhs = (f(x, p, {target: p[target] + delta}) - f(x, p, {})).abs().flatten(1).amax(1)
    logit, value, q, _ = _scales(case)
    d_h, n = q.shape[-1], x.shape[-2]
    shift = (q.abs().amax(2) * delta.abs()[:, :, None, :].amax(2)).sum(-1).amax(1) / d_h**0.5
    return lhs, torch.zeros_like(lhs), OUT_TOL((d_h + n + 8) * (1 + logit + shift), x.dtype) * value


def gradient_sides(case, target="bk"):
    """max|∂⟨c, f⟩/∂b_K| (or ∂/∂``target``) against 0, c a Gaussian cotangent."""
    p, x, cot = {k: case[k] for k in PARAMS}, case["x"], case["cot"]
    grads = torch.func.vmap(torch.func.grad(lambda p, x, c: (_mha(x, p) * c).sum()))(p, x, cot)
    lhs = grads[target].abs().flatten(1).amax(1)
    _, _, q, vo = _scales(case)
    d_h, n = q.shape[-1], x.shape[-2]
    a = torch.func.vmap(lambda x, wq, wk, bq, bk: operators.mha_weights(x, wq, wk, bq=bq, bk=bk))(
        x, p["wq"], p["wk"], p["bq"], p["bk"])
    g = torch.einsum("bnf,bhmf->bhnm", cot, vo)  # ∂L/∂a_ij = c_i·(v_j W_O^h)
    ds = a * (g - (a * g).sum(-1, keepdim=True))
    scale = (ds.abs().sum((-1, -2)) * q.abs().flatten(2).amax(2)).amax(1) / d_h**0.5
    return lhs, torch.zeros_like(lhs), GRAD_TOL(2 * n + d_h + 8, x.dtype) * scale


def _sample(ctx, gen):
    """Per H ∈ HEADS (d = H·d_h, d_h = 2): 32 draws of Gaussian parameters N(0, 1/d) with Gaussian
    biases (std 1), 5 Gaussian tokens, a Gaussian shift δ of std 3 and a Gaussian cotangent."""
    for h in HEADS:
        d = h * D_H
        r = lambda *s, sd=1.0: sd * torch.randn(DRAWS, *s, generator=gen, dtype=ctx.dtype, device=gen.device)  # noqa: E731
        yield {"x": r(N, d), "wq": r(h, d, D_H, sd=d**-0.5), "wk": r(h, d, D_H, sd=d**-0.5),
               "wv": r(h, d, D_H, sd=d**-0.5), "wo": r(h, D_H, d, sd=D_H**-0.5),
               "bq": r(h, D_H), "bk": r(h, D_H), "bv": r(h, D_H), "bo": r(d),
               "delta": r(h, D_H, sd=3.0), "cot": r(N, d)}


SAMPLER = (f"H ∈ {HEADS}, d_h = {D_H}, d = H·d_h, {DRAWS} draws each: W ~ N(0, 1/d), biases ~ N(0, 1), "
           f"{N} Gaussian tokens, δ ~ N(0, 9), cotangent ~ N(0, 1); float64")

CLAIMS = (Claim(
    id="mha-identification/bias-no-effect", label="The key bias has no effect", section="abstract",
    statement=STATEMENT, clauses=CLAUSES, kind="identity", derivation=derivation, reading=READING,
    reading_why="the key bias is the bias whose contribution to row i's logits is constant in j, "
                "which is the mechanism the abstract's 'softmax-based' points at",
    identity=("softmax's shift invariance: the key bias adds q_i·b_K/√d_h to every logit of row i, the "
              "same for every key j"),
    proof_absent=PROOF_ABSENT,
    checks=(
        Relation(name="outputs-unchanged", lhs="max|f(b_K + δ) − f(b_K)|", rel="==", rhs="0",
                 evaluate=output_sides, sample=_sample, tolerance=OUT_TOL, sampler=SAMPLER,
                 controls=(control("δ added to the query bias b_Q instead", contrast="prediction",
                                   evaluate=lambda case: output_sides(case, "bq")),)),
        Relation(name="key-bias-gradient-zero", lhs="max|∂⟨c, f⟩/∂b_K|", rel="==", rhs="0",
                 evaluate=gradient_sides, sample=_sample, tolerance=GRAD_TOL, sampler=SAMPLER,
                 controls=(control("the gradient with respect to the query bias b_Q", contrast="prediction",
                                   evaluate=lambda case: gradient_sides(case, "bq")),)),
    ),
    notes=("The value bias is not identified either, though it does act: it shifts the output by "
           "Σ_h b_V^h W_O^h, which b_O can absorb (the Jacobian counts 2·H·d_h more invariant "
           "directions with all four biases: d_h per head from b_K, d_h per head from b_V). The "
           "gradient is zero in exact arithmetic; in float64 it is a cancelling sum at round-off."),
),)
