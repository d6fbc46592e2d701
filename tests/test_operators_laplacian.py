"""LaplacianFormer operators and RMSNorm beyond the registry: the documented identities and
keyword-only parameters (meta tensors, dtypes, errors and derivatives: tests/test_operators.py, over
the registry)."""

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


def test_parameters_are_keyword_only():
    x = torch.zeros(4, 2, dtype=F64)
    with pytest.raises(TypeError):
        O.laplacian_kernel(x, x, 1.0)  # type: ignore[misc]
    with pytest.raises(TypeError):
        O.rms_norm(x, 1e-6)  # type: ignore[misc]
