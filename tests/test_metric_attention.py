"""operators.metric_attention beyond the registry: the residual-exact pure attention stack against a
direct (materialised) stack, the composite residual, and meta tensors (no host work)."""

import math

import pytest
import torch

from attnaudit import operators
from attnaudit.operators.metric_attention import collapse_stack, composite_residual

F64 = torch.float64


def _direct_stack(x, wq, wk, wv, u, tau, kind):
    out = [composite_residual(x)]
    for layer in range(wq.shape[1]):
        q, k = x @ wq[:, layer], x @ wk[:, layer]
        if kind == "dot":
            s = q @ k.transpose(1, 2) / tau
        else:
            uu = u if u is not None else torch.zeros(*x.shape, 1, dtype=F64)
            s = operators.metric_scores(q, k, uq=uu, uk=uu, tau=tau, path="direct")
        x = torch.softmax(s, -1) @ x @ wv[:, layer]
        out.append(composite_residual(x))
    return torch.stack(out, -1)


@pytest.mark.parametrize("kind,metric", [("dot", False), ("distance", False), ("distance", True)])
def test_collapse_stack_matches_direct_stack(kind, metric):
    g = torch.Generator().manual_seed(7)
    b, n, d, depth = 3, 6, 4, 3
    x = torch.randn(b, n, d, generator=g, dtype=F64)
    wq, wk, wv = (torch.randn(b, depth, d, d, generator=g, dtype=F64) / 2 for _ in range(3))
    u = 0.5 * torch.randn(b, n, d, 2, generator=g, dtype=F64) if metric else None
    c = x.mean(1)
    log_res, _ = collapse_stack(c, x - c[:, None], wq, wk, wv, u=u, tau=2.0, kind=kind)
    torch.testing.assert_close(log_res.exp(), _direct_stack(x, wq, wk, wv, u, 2.0, kind), rtol=1e-9, atol=0)


def test_collapse_stack_orders():
    """Per-layer order 3 without metrics, 2 with heterogeneous ones, deep in the collapsed regime."""
    g = torch.Generator().manual_seed(3)
    b, n, d, depth = 2, 16, 4, 14
    c, r = torch.randn(b, d, generator=g, dtype=F64), torch.randn(b, n, d, generator=g, dtype=F64)
    r = r - r.mean(1, keepdim=True)
    ws = [torch.linalg.qr(torch.randn(b, depth, d, d, generator=g, dtype=F64))[0] for _ in range(3)]
    u = torch.randn(b, n, d, 2, generator=g, dtype=F64) * 0.5
    for metric, order in ((None, 3.0), (u, 2.0)):
        lr, ls = collapse_stack(c, r, *ws, u=metric, tau=2.0, kind="distance")
        y = -(lr - ls)
        assert y[:, -1].min() > 1e3
        assert torch.allclose(y[:, -1] / y[:, -2], torch.full((b,), order, dtype=F64), rtol=1e-3)


def test_composite_residual_within_factor_two_of_min():
    g = torch.Generator().manual_seed(5)
    x = torch.randn(8, 7, 3, generator=g, dtype=F64)
    mean_res = composite_residual(x)
    for _ in range(200):
        shift = x.mean(1, keepdim=True) + torch.randn(8, 1, 3, generator=g, dtype=F64) * 0.3
        assert torch.all(mean_res <= 2 * operators.composite_norm(x - shift) * (1 + 1e-12))


def test_operators_run_on_meta():
    q, k, v = (torch.empty(5, 4, device="meta") for _ in range(3))
    u = torch.empty(5, 4, 2, device="meta")
    assert operators.metric_scores(q, k, uq=u, uk=u).device.type == "meta"
    assert operators.metric_bias_attention(q, k, v, uq=u, uk=u, block=2).shape == (5, 4)
    assert operators.woodbury_inverse(u[0]).shape == (4, 4)


def test_bad_inputs():
    q = torch.zeros(3, 2, dtype=F64)
    u = torch.zeros(3, 2, 1, dtype=F64)
    with pytest.raises(ValueError, match="path must be"):
        operators.metric_scores(q, q, uq=u, uk=u, path="fast")
    with pytest.raises(ValueError, match="block must be"):
        operators.metric_bias_attention(q, q, q, uq=u, uk=u, block=0)
    w = torch.zeros(1, 1, 2, 2, dtype=F64)
    with pytest.raises(ValueError, match="kind must be"):
        collapse_stack(q[:1], q[None], w, w, w, kind="cosine")
    assert math.isfinite(float(operators.composite_norm(q)))


def test_collapse_stack_effective_rank_matches_direct():
    g = torch.Generator().manual_seed(11)
    b, n, d, depth = 2, 6, 3, 2
    x = torch.randn(b, n, d, generator=g, dtype=F64)
    wq, wk, wv = (torch.randn(b, depth, d, d, generator=g, dtype=F64) / 2 for _ in range(3))
    c = x.mean(1)
    _, _, log_er = collapse_stack(c, x - c[:, None], wq, wk, wv, tau=2.0, kind="dot", with_erank=True)
    want = [operators.effective_rank(x.transpose(1, 2) @ x)]
    for layer in range(depth):
        s = (x @ wq[:, layer]) @ (x @ wk[:, layer]).transpose(1, 2) / 2.0
        x = torch.softmax(s, -1) @ x @ wv[:, layer]
        want.append(operators.effective_rank(x.transpose(1, 2) @ x))
    torch.testing.assert_close(log_er.exp() + 1, torch.stack(want, -1), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("path", ["decomposed", "direct"])
def test_metric_scores_gradcheck(path):
    g = torch.Generator().manual_seed(13)
    q, k = torch.randn(3, 2, generator=g, dtype=F64), torch.randn(4, 2, generator=g, dtype=F64)
    uq, uk = torch.randn(3, 2, 1, generator=g, dtype=F64), torch.randn(4, 2, 1, generator=g, dtype=F64)
    args = tuple(t.requires_grad_() for t in (q, k, uq, uk))
    assert torch.autograd.gradcheck(
        lambda a, b, c, d: operators.metric_scores(a, b, uq=c, uk=d, tau=0.7, path=path), args)


def test_metric_bias_attention_gradcheck_and_blocks():
    g = torch.Generator().manual_seed(17)
    q, k, v = (torch.randn(n, 2, generator=g, dtype=F64) for n in (3, 5, 5))
    uq, uk = torch.randn(3, 2, 1, generator=g, dtype=F64), torch.randn(5, 2, 1, generator=g, dtype=F64)
    ref = operators.metric_attention_direct(q, k, v, uq=uq, uk=uk, tau=0.5)
    for block in (1, 2, 5, 64):
        out = operators.metric_bias_attention(q, k, v, uq=uq, uk=uk, tau=0.5, block=block)
        torch.testing.assert_close(out, ref, rtol=1e-12, atol=1e-12)
    args = tuple(t.requires_grad_() for t in (q, k, v))
    assert torch.autograd.gradcheck(
        lambda a, b, c: operators.metric_bias_attention(a, b, c, uq=uq, uk=uk, block=2), args)


def _mp_stack(x, wq, wk, wv, u, tau, kind, dps):
    """The stack computed directly at ``dps`` digits (mpmath), with no split of the scores and no
    residual-exact form: log ‖X_l − 1x̄_lᵀ‖_{1,∞} per depth."""
    import mpmath as mp

    mp.mp.dps = dps
    n, d = len(x), len(x[0])
    X = mp.matrix([[mp.mpf(float(v)) for v in row] for row in x])
    G = None
    if u is not None:
        G = [mp.matrix([[float(v) for v in row] for row in ut]) for ut in u]
        G = [mp.eye(d) + g * g.T for g in G]

    def log_res(X):
        mean = [mp.fsum(X[i, j] for i in range(n)) / n for j in range(d)]
        R = [[X[i, j] - mean[j] for j in range(d)] for i in range(n)]
        one = max(mp.fsum(abs(R[i][j]) for i in range(n)) for j in range(d))
        inf = max(mp.fsum(abs(R[i][j]) for j in range(d)) for i in range(n))
        return mp.log(mp.sqrt(one * inf))

    out = [log_res(X)]
    for layer in range(len(wq)):
        Wq, Wk, Wv = (mp.matrix([[float(v) for v in row] for row in w[layer]]) for w in (wq, wk, wv))
        Q, K = X * Wq, X * Wk
        S = mp.matrix(n, n)
        for i in range(n):
            for j in range(n):
                if kind == "dot":
                    S[i, j] = mp.fsum(Q[i, t] * K[j, t] for t in range(d)) / tau
                else:
                    delta = mp.matrix([Q[i, t] - K[j, t] for t in range(d)])
                    g = mp.eye(d) if G is None else (G[i] + G[j]) / 2
                    S[i, j] = -(delta.T * g * delta)[0] / tau
        P = mp.matrix(n, n)
        for i in range(n):
            top = max(S[i, j] for j in range(n))
            w = [mp.exp(S[i, j] - top) for j in range(n)]
            tot = mp.fsum(w)
            for j in range(n):
                P[i, j] = w[j] / tot
        X = P * X * Wv
        out.append(log_res(X))
    return [float(v) for v in out]


@pytest.mark.parametrize("kind,metric,depth", [("dot", False, 5), ("distance", True, 7)])
def test_collapse_stack_matches_a_direct_mpmath_stack_far_below_float64(kind, metric, depth):
    """Every layer computed in full: the residual-exact float64 stack agrees with a direct stack at
    600 digits (no split, no residual form) down to residuals of 1e-200 and below, where a float64
    stack stops at round-off; and the per-layer order is what the computation shows (3 or 2)."""
    g = torch.Generator().manual_seed(23)
    b, n, d = 1, 4, 2
    c = torch.randn(b, d, generator=g, dtype=F64) * 2
    r = torch.randn(b, n, d, generator=g, dtype=F64) * 0.3
    r = r - r.mean(1, keepdim=True)
    ws = [torch.linalg.qr(torch.randn(b, depth, d, d, generator=g, dtype=F64))[0] for _ in range(3)]
    u = torch.randn(b, n, d, 1, generator=g, dtype=F64) * 0.7 if metric else None
    log_res, _ = collapse_stack(c, r, *ws, u=u, tau=2.0, kind=kind)
    x = (c[:, None] + r)[0].tolist()
    want = _mp_stack(x, *(w[0].tolist() for w in ws), None if u is None else u[0].tolist(), 2.0, kind, 600)
    assert want[-1] < -300  # a residual below 1e-130: a float64 stack ends near 1e-16 relative
    torch.testing.assert_close(log_res[0], torch.tensor(want, dtype=F64), rtol=1e-9, atol=1e-9)
