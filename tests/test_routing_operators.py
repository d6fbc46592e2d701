"""HyperGate and GSR routing beyond the registry's reference samples: the torch.func Jacobian
against autograd row by row, gradients through the gate and the router, and GSR's structure
(k = K_pool is SIDA, weights are a distribution, the Top-K set is the K largest)."""

import pytest
import torch

from attnaudit import operators

F64 = torch.float64


def randn(seed, *shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=F64)


def unit(seed, *shape):
    x = randn(seed, *shape)
    return x / x.norm(dim=-1, keepdim=True)


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
def test_hypergate_jacobian_matches_autograd_rows():
    x, w = randn(1, 3, 4), randn(2, 4, 4)
    jac = operators.hypergate_jacobian(x, w)
    for i in range(3):
        xi = x[i].clone().requires_grad_()
        rows = [torch.autograd.grad(operators.hypergate(xi, w)[k], xi)[0] for k in range(4)]
        torch.testing.assert_close(jac[i], torch.stack(rows), rtol=1e-14, atol=1e-15)


def test_hypergate_gradcheck():
    x, w = randn(3, 2, 3).requires_grad_(), randn(4, 3, 3).requires_grad_()
    assert torch.autograd.gradcheck(operators.hypergate, (x, w))
    assert torch.autograd.gradgradcheck(operators.hypergate, (x, w))


def test_gsr_with_the_whole_pool_is_sida_and_weights_are_a_distribution():
    q, c, v = unit(5, 2, 4, 3), unit(6, 2, 7, 3), randn(7, 2, 7, 2)
    torch.testing.assert_close(operators.gsr_attention(q, c, v, eps=1e-3, k=7),
                               operators.gsr_exact(q, c, v, eps=1e-3), rtol=1e-13, atol=1e-14)
    w = operators.gsr_weights(q, c, eps=1e-3)
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 4, dtype=F64))
    top, idx = operators.gsr_topk(q, c, eps=1e-3, k=3)
    assert torch.equal(top, torch.sort(w, dim=-1, descending=True).values[..., :3])
    assert torch.equal(torch.gather(w, -1, idx), top)


def test_gsr_attention_gradcheck():
    q, c = unit(8, 3, 3).requires_grad_(), unit(9, 5, 3).requires_grad_()
    v = randn(10, 5, 2).requires_grad_()
    def gsr(a, b, d):
        return operators.gsr_attention(a, b, d, eps=1e-2, k=2)

    assert torch.autograd.gradcheck(gsr, (q, c, v))


def test_sphere_mlp_map_is_unit_and_differentiable():
    c = randn(11, 6, 3).requires_grad_()
    params = [randn(12, 5, 3), randn(13, 5), randn(14, 4, 5), randn(15, 4)]
    out = operators.sphere_mlp_map(c, *params)
    torch.testing.assert_close(out.norm(dim=-1), torch.ones(6, dtype=F64))
    assert torch.autograd.gradcheck(lambda a: operators.sphere_mlp_map(a, *params), (c,))


def test_gsr_weights_are_sida_attentions_weights():
    q, c = unit(16, 2, 5, 4), unit(17, 2, 9, 4)
    eye = torch.eye(9, dtype=F64)
    for eps in (1e-12, 1e-2, 3.0):
        torch.testing.assert_close(operators.gsr_weights(q, c, eps=eps),
                                   operators.sida_attention(q, c, eye.expand(2, 9, 9), eps=eps),
                                   rtol=1e-12, atol=1e-15)
