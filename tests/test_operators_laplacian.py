"""LaplacianFormer operators and RMSNorm beyond the registry: the documented identities, no
data-dependent host work (meta tensors), keyword-only parameters."""

import pytest
import torch

from attnaudit import operators as O

F64 = torch.float64


def _gen(seed):
    return torch.Generator().manual_seed(seed)


def test_newton_schulz_residual_squares_each_step():
    """E_{k+1} = E_k² for E_k = I − A X_k (the docstring's identity), on a non-symmetric A."""
    a = torch.eye(5, dtype=F64) * 3 + torch.randn(5, 5, generator=_gen(1), dtype=F64)
    xs = O.newton_schulz_inverse(a, iterations=6, return_iterates=True)
    eye = torch.eye(5, dtype=F64)
    e = eye - a @ xs
    torch.testing.assert_close(e[1:], e[:-1] @ e[:-1], rtol=0, atol=1e-12)
    assert torch.linalg.matrix_norm(e[0], ord=2) < 1


def test_nystrom_with_all_landmarks_is_the_kernel():
    x = torch.randn(2, 6, 3, generator=_gen(2), dtype=F64)
    exact = O.laplacian_kernel(x, x, sigma=2.0)
    torch.testing.assert_close(O.nystrom_kernel(x, x, sigma=2.0, landmarks=6), exact)


def test_rms_norm_jacobian_norm_is_inverse_sqrt_eps_at_zero():
    g = torch.tensor([0.5, -2.0, 1.0], dtype=F64)
    jac = torch.func.jacrev(lambda x: O.rms_norm(x, eps=1e-6, weight=g))(torch.zeros(3, dtype=F64))
    torch.testing.assert_close(torch.linalg.matrix_norm(jac, ord=2), torch.tensor(2.0 / 1e-3, dtype=F64))


@pytest.mark.parametrize("call", [
    lambda q, k: O.laplacian_kernel(q, k, sigma=1.0),
    lambda q, k: O.gaussian_kernel(q, k, sigma=1.0),
    lambda q, k: O.nystrom_kernel(q, k, sigma=1.0, landmarks=2),
    lambda q, k: O.nystrom_kernel(q, k, sigma=1.0, landmarks=2, iterations=3),
    lambda q, k: O.newton_schulz_inverse(q[..., :4, :], iterations=3),
    lambda q, k: O.rms_norm(q, eps=1e-6),
    lambda q, k: O.segment_means(q, 2),
])
def test_no_data_dependent_host_work(call):
    q, k = (torch.empty(2, 4, 4, device="meta", dtype=F64) for _ in range(2))
    assert call(q, k).device.type == "meta"


def test_parameters_are_keyword_only():
    x = torch.zeros(4, 2, dtype=F64)
    with pytest.raises(TypeError):
        O.laplacian_kernel(x, x, 1.0)  # type: ignore[misc]
    with pytest.raises(TypeError):
        O.rms_norm(x, 1e-6)  # type: ignore[misc]
