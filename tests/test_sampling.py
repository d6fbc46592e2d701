"""checks.sampling: the seeded batched samplers and the Hypothesis strategies, against what their
docstrings say they produce (shapes, ranges, distributions, determinism, shrinking)."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from attnaudit.checks import sampling
from attnaudit.checks.context import Context

F64 = torch.float64
# Hypothesis' own search for the properties below: no database, the same examples every run.
SEARCH = settings(database=None, derandomize=True, max_examples=300, deadline=None)


def _ctx(dtype_name="float64"):
    return Context("test/sampling", seed=0, dtype_name=dtype_name)


def _draw(sampler, *shape, tag="t", dtype_name="float64", **kw):
    ctx = _ctx(dtype_name)
    return sampler(ctx, ctx.generator(tag), *shape, **kw)


def test_same_seed_same_draws_and_the_tag_separates_them():
    for sampler, kw in ((sampling.gaussian, {}), (sampling.log_uniform, {"low": 1e-3, "high": 1e3}),
                        (sampling.unit_vectors, {})):
        a, b = _draw(sampler, 50, 4, **kw), _draw(sampler, 50, 4, **kw)
        assert torch.equal(a, b)  # byte-identical
        assert not torch.equal(a, _draw(sampler, 50, 4, tag="other", **kw))


def test_gaussian_has_the_shape_dtype_and_scale():
    x = _draw(sampling.gaussian, 200_000, scale=3.0)
    assert x.shape == (200_000,) and x.dtype == F64
    # standard errors: scale/√n for the mean, scale/√(2n) for the standard deviation; 6 of them
    n = x.numel()
    assert abs(float(x.mean())) < 6 * 3.0 / math.sqrt(n)
    assert abs(float(x.std()) - 3.0) < 6 * 3.0 / math.sqrt(2 * n)
    assert _draw(sampling.gaussian, 2, 3, dtype_name="float32").dtype == torch.float32


def test_log_uniform_covers_every_decade_equally_and_stays_in_range():
    x = _draw(sampling.log_uniform, 120_000, low=1e-3, high=1e3)
    assert float(x.min()) >= 1e-3 and float(x.max()) <= 1e3
    counts = torch.histc(torch.log10(x), bins=6, min=-3, max=3)
    # each of the 6 decades holds 1/6 of the draws: binomial sd √(n·p(1−p)) ≈ 129; 6 sd
    assert (counts - x.numel() / 6).abs().max() < 6 * math.sqrt(x.numel() * (1 / 6) * (5 / 6))


@pytest.mark.parametrize("low,high", [(0.0, 1.0), (-1.0, 2.0), (2.0, 2.0), (3.0, 1.0)])
def test_log_uniform_rejects_bounds_that_are_not_0_lt_low_lt_high(low, high):
    with pytest.raises(ValueError, match="0 < low < high"):
        _draw(sampling.log_uniform, 3, low=low, high=high)


def test_unit_vectors_are_unit_and_isotropic():
    v = _draw(sampling.unit_vectors, 100_000, 3)
    assert v.shape == (100_000, 3)
    assert float((torch.linalg.vector_norm(v, dim=-1) - 1).abs().max()) <= 4 * torch.finfo(F64).eps
    # uniform on S²: each coordinate has mean 0 and variance 1/3 (sd of the mean √(1/3n)); 6 sd
    assert float(v.mean(0).abs().max()) < 6 * math.sqrt(1 / (3 * v.shape[0]))
    assert float((v.square().mean(0) - 1 / 3).abs().max()) < 0.01


def test_min_pairwise_distances_match_brute_force_and_ignore_the_diagonal():
    g = torch.Generator().manual_seed(4)
    x = torch.randn(3, 6, 2, generator=g, dtype=F64)
    x[1, 4] = x[1, 2]  # a coincident pair: exactly 0
    brute = torch.tensor([min(float(((a[i] - a[j]) ** 2).sum()) for i in range(6) for j in range(6) if i != j)
                          for a in x], dtype=F64)
    got = sampling.min_pairwise_squared_distance(x)
    assert got.shape == (3,) and got[1] == 0
    torch.testing.assert_close(got, brute, rtol=1e-14, atol=0)  # direct differences: a few ulps
    torch.testing.assert_close(sampling.min_pairwise_distance(x), brute.sqrt(), rtol=1e-14, atol=0)


@SEARCH
@given(sampling.point_sets(n=(2, 5), d=(1, 3), bound=2.5))
def test_point_sets_have_the_stated_shapes_and_bounds(a):
    assert 2 <= a.shape[0] <= 5 and 1 <= a.shape[1] <= 3
    assert a.dtype.name == "float64" and (abs(a) <= 2.5).all()


def test_point_sets_shrink_to_the_smallest_zero_set():
    from hypothesis import find

    minimal = find(sampling.point_sets(n=(2, 5), d=(1, 3)), lambda a: True, settings=SEARCH)
    assert minimal.shape == (2, 1) and (minimal == 0).all()


# 10**log10(b) need not round back to b: 3e-5, 7e-5, 0.3 and 0.7 do not.
@pytest.mark.parametrize("low,high", [(1e-3, 10.0), (3e-5, 7e-5), (0.3, 0.7), (0.2, 0.9), (1e-8, 1e-3)])
@SEARCH
@given(st.data())
def test_log_uniform_floats_stay_within_low_and_high(low, high, data):
    x = data.draw(sampling.log_uniform_floats(low, high))
    assert low <= x <= high


def _minimal(low, high):
    from hypothesis import find

    return find(sampling.log_uniform_floats(low, high), lambda x: True, settings=SEARCH)


def test_log_uniform_floats_shrink_to_one_whenever_one_is_in_range():
    """Not toward ``low`` (the docstring's old claim): the exponent shrinks like any Hypothesis float,
    to 0 when the range holds it, so the value shrinks to 1.0."""
    for low, high in ((1e-3, 1e3), (1e-6, 1.0), (1.0, 50.0)):
        assert _minimal(low, high) == 1.0


def test_log_uniform_floats_shrink_to_the_simplest_exponent_otherwise():
    """Without 1 in range the exponent shrinks to the integer nearest 0 (a power of ten: the upper
    end for a range below 1, never ``low``), else to a short fraction."""
    assert _minimal(1e-8, 1e-3) == pytest.approx(1e-3, rel=1e-15)
    assert _minimal(2.0, 500.0) == pytest.approx(10.0, rel=1e-15)
    assert _minimal(3e-5, 7e-5) == pytest.approx(10**-4.5, rel=1e-15)


def test_log_uniform_floats_reach_both_ends_of_a_decade_range():
    from hypothesis import find

    for end in (1e-8, 1e-3):
        try:
            find(sampling.log_uniform_floats(1e-8, 1e-3), lambda x, e=end: x == e, settings=SEARCH)
        except NoSuchExample:  # pragma: no cover - the failure message
            pytest.fail(f"log_uniform_floats(1e-8, 1e-3) never produced {end}")
