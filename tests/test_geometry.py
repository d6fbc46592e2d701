"""Tests for the geometry modules: the docstrings' formulas and identities (SymPy, mpmath),
algebraic properties by name, the Karcher mean's stopping rule, and geoopt as a peer."""

import math

import mpmath
import pytest
import sympy as sp
import torch

from attnaudit.operators import (
    _smooth,
    mobius_add,
    poincare_distance,
    poincare_expmap,
    poincare_expmap0,
    poincare_karcher_mean,
    poincare_logmap,
    poincare_logmap0,
    poincare_project,
    poincare_tanh_map,
    sphere_distance,
    sphere_normalize,
    sphere_stereographic,
    sphere_stereographic_inverse,
)

F64 = torch.float64


def randn(seed, *shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=F64)


def ball(seed, *shape, scale=0.9, c=1.0):
    return poincare_tanh_map(randn(seed, *shape), scale=scale, c=c)


# ---------------------------------------------------------------- formulas checked symbolically
t = sp.symbols("t", positive=True)


@pytest.mark.parametrize(
    "coeffs,expr,times_t",
    [
        (_smooth.ASINH_SQRT_SQ, sp.asinh(sp.sqrt(t)) ** 2, True),
        (_smooth.ATAN_SQRT_SQ, sp.atan(sp.sqrt(t)) ** 2, True),
        (_smooth.ASINH_SQRT_OVER_SQRT, sp.asinh(sp.sqrt(t)) / sp.sqrt(t), False),
        (_smooth.TANH_SQRT_OVER_SQRT, sp.tanh(sp.sqrt(t)) / sp.sqrt(t), False),
    ],
)
def test_series_coefficients_match_sympy(coeffs, expr, times_t):
    series = sp.series(expr, t, 0, len(coeffs) + times_t).removeO()
    poly = sp.Poly(sp.expand(series), t)
    want = [poly.coeff_monomial(t ** (i + times_t)) for i in range(len(coeffs))]
    assert [sp.Rational(c.numerator, c.denominator) for c in coeffs] == want
    # The first omitted term is below u = 2^-53 at the switch point.
    nxt = sp.series(expr, t, 0, len(coeffs) + times_t + 1).removeO() - series
    assert abs(float(nxt.subs(t, _smooth.SWITCH))) / float(expr.subs(t, _smooth.SWITCH)) < 2.0**-53


def test_distance_identities_symbolically():
    """arcosh(1 + 2δ) = 2 asinh √δ = log1p(2δ + 2√(δ(1+δ))) (poincare module docstring)."""
    d = sp.symbols("delta", positive=True)
    for value in (sp.Rational(1, 10**9), sp.Rational(3, 7), sp.Integer(10**12)):
        a = sp.acosh(1 + 2 * d).subs(d, value)
        b = (2 * sp.asinh(sp.sqrt(d))).subs(d, value)
        c = sp.log(1 + 2 * d + 2 * sp.sqrt(d * (1 + d))).subs(d, value)
        assert abs(sp.N(a - b, 50)) < 1e-45 and abs(sp.N(b - c, 50)) < 1e-45


def test_mobius_and_log_identities_symbolically():
    """The stable forms of mobius_add and poincare_logmap, exactly (SymPy, d = 2)."""
    x1, x2, y1, y2 = sp.symbols("x1 x2 y1 y2", real=True)
    c = sp.symbols("c", positive=True)
    x, y = sp.Matrix([x1, x2]), sp.Matrix([y1, y2])
    xy, xx, yy = x.dot(y), x.dot(x), y.dot(y)
    s = x + y
    ax, ay = 1 - c * xx, 1 - c * yy
    textbook = ((1 + 2 * c * xy + c * yy) * x + (1 - c * xx) * y) / (1 + 2 * c * xy + c**2 * xx * yy)
    stable = (ax * s + c * s.dot(s) * x) / (ax * ay + c * s.dot(s))
    assert sp.simplify(textbook - stable) == sp.zeros(2, 1)
    # u = (-x) ⊕ y: 1 - c‖u‖² = α_x α_y / (α_x α_y + c‖x - y‖²) and c‖u‖²/α_u = δ.
    u = ((1 - 2 * c * xy + c * yy) * (-x) + (1 - c * xx) * y) / (1 - 2 * c * xy + c**2 * xx * yy)
    n2 = (x - y).dot(x - y)
    alpha_u = ax * ay / (ax * ay + c * n2)
    assert sp.simplify(1 - c * u.dot(u) - alpha_u) == 0
    assert sp.simplify(c * u.dot(u) / alpha_u - c * n2 / (ax * ay)) == 0


def test_half_angle_identities_symbolically():
    """‖x ∓ y‖² = (a - b)² + 4ab sin²(θ/2) / cos²(θ/2) (sphere module docstring)."""
    a, b, th = sp.symbols("a b theta", positive=True)
    x = sp.Matrix([a, 0])
    y = sp.Matrix([b * sp.cos(th), b * sp.sin(th)])
    assert sp.simplify((x - y).dot(x - y) - ((a - b) ** 2 + 4 * a * b * sp.sin(th / 2) ** 2)) == 0
    assert sp.simplify((x + y).dot(x + y) - ((a - b) ** 2 + 4 * a * b * sp.cos(th / 2) ** 2)) == 0


# ---------------------------------------------------------------- properties by name
def test_mobius_properties():
    x, y = ball(1, 6, 4), ball(2, 6, 4)
    zero = torch.zeros_like(x)
    torch.testing.assert_close(mobius_add(zero, y), y)
    torch.testing.assert_close(mobius_add(x, zero), x)
    torch.testing.assert_close(mobius_add(-x, x), zero, rtol=0, atol=1e-16)
    torch.testing.assert_close(mobius_add(-x, mobius_add(x, y)), y)  # left cancellation


def test_maps_are_inverse_and_match_distances():
    x, y = ball(3, 5, 4, scale=0.99), ball(4, 5, 4, scale=0.99)
    v = poincare_logmap(x, y)
    torch.testing.assert_close(poincare_expmap(x, v), y)
    lam = 2 / (1 - (x * x).sum(-1))
    torch.testing.assert_close(lam * v.norm(dim=-1), poincare_distance(x, y))  # ‖log_x y‖_x = d(x, y)
    torch.testing.assert_close(poincare_logmap0(poincare_expmap0(v)), v)
    torch.testing.assert_close(
        2 * poincare_logmap0(y).norm(dim=-1), poincare_distance(torch.zeros_like(y), y)
    )
    assert torch.all(poincare_logmap(x, x) == 0)


def test_tanh_map_stays_in_the_ball_and_projection_is_declared():
    z = 100 * randn(5, 50, 8)
    x = poincare_tanh_map(z)
    assert float(x.norm(dim=-1).max()) <= 0.9 * (1 + 4 * torch.finfo(F64).eps)
    assert float((0.9 * torch.tanh(z)).norm(dim=-1).max()) > 1  # the coordinate-wise reading leaves the ball
    far = 3 * randn(6, 10, 3)
    p = poincare_project(far, c=2.0, margin=1e-3)
    assert float(p.norm(dim=-1).max()) <= (1 - 1e-3) / math.sqrt(2.0) * (1 + 1e-15)
    inside = far / far.norm(dim=-1, keepdim=True) * 0.1
    assert torch.equal(poincare_project(inside), inside)
    assert float(poincare_project(far).norm(dim=-1).max()) < 1  # default margin 2·eps keeps it inside


def test_sphere_maps():
    z = randn(7, 6, 3)
    s = sphere_stereographic(z)
    torch.testing.assert_close(s.norm(dim=-1), torch.ones(6, dtype=F64))
    torch.testing.assert_close(sphere_stereographic_inverse(s), z)
    torch.testing.assert_close(
        sphere_stereographic(torch.zeros(1, 3, dtype=F64)), torch.tensor([[0.0, 0.0, 0.0, 1.0]], dtype=F64)
    )  # origin -> north pole
    u = sphere_normalize(1e-100 * randn(8, 4, 5))
    torch.testing.assert_close(u.norm(dim=-1), torch.ones(4, dtype=F64))
    a, b = randn(9, 5), randn(10, 5)
    torch.testing.assert_close(sphere_distance(a, b), sphere_distance(3 * a, 0.5 * b))
    torch.testing.assert_close(sphere_distance(a, -a), torch.tensor(math.pi, dtype=F64), rtol=0, atol=0)


@pytest.mark.parametrize("scale", [2.0**-1000, 2.0**1000, 1e-300, 1e300])
def test_sphere_angles_hold_at_any_scale(scale):
    """The angle is scale-invariant: vectors far outside 1e±154, where every square under- or
    overflows in float64, give the angles of the vectors in range. A power-of-two scale
    leaves the direction exact (within 2 ulps of the in-range angle, and 0 for parallel
    vectors); 1e±300 turns it by the rounding of each coordinate, a few ulps."""
    from attnaudit.operators import sphere_sqdist

    a, b = randn(12, 6, 5), randn(13, 7, 5)
    b[0] = a[0]  # coincident directions
    exact = scale in (2.0**-1000, 2.0**1000)
    tol = {"rtol": 4.5e-16, "atol": 0} if exact else {"rtol": 1e-14, "atol": 4e-15}
    torch.testing.assert_close(sphere_distance(scale * a[:6], b[:6]), sphere_distance(a[:6], b[:6]), **tol)
    torch.testing.assert_close(sphere_sqdist(scale * a, b), sphere_sqdist(a, b), **tol)
    torch.testing.assert_close(sphere_normalize(scale * a), sphere_normalize(a), **tol)
    if exact:
        assert float(sphere_distance(scale * a[0], a[0])) == 0.0
    # The derivative too, where it exists (0 < θ < π; row 0 is coincident): ∇ₓ θ(s·x) = ∇θ(x)/s.
    x, x1 = (scale * a[1:6]).requires_grad_(), a[1:6].clone().requires_grad_()
    sphere_distance(x, b[1:6]).sum().backward()
    sphere_distance(x1, b[1:6]).sum().backward()
    torch.testing.assert_close(x.grad * scale, x1.grad, rtol=1e-12, atol=1e-14)


# ---------------------------------------------------------------- Karcher mean
def test_karcher_mean_stopping_rule_and_optimality():
    x = ball(11, 3, 6, 3, scale=0.95)
    mu, info = poincare_karcher_mean(x, return_info=True)
    assert info["converged"] and info["iterations"] < 200
    # The stopping quantity: ½‖grad F(μ)‖_μ = λ_μ ‖Σ w_i log_μ x_i‖ ≤ tol·(1 + radius).
    logs = poincare_logmap(mu[:, None, :], x)
    lam = 2 / (1 - (mu * mu).sum(-1))
    radius = poincare_distance(mu[:, None, :], x).amax(-1)
    assert torch.all(lam * logs.mean(-2).norm(dim=-1) <= 64 * torch.finfo(F64).eps * (1 + radius))
    # It minimises F: small perturbations do not decrease Σ d².
    f = poincare_distance(mu[:, None, :], x).square().sum(-1)
    for seed in range(5):
        nudged = poincare_expmap(mu, 1e-4 * randn(20 + seed, 3, 3))
        assert torch.all(poincare_distance(nudged[:, None, :], x).square().sum(-1) >= f)


def test_karcher_mean_special_cases():
    p = ball(12, 1, 3)
    torch.testing.assert_close(poincare_karcher_mean(p), p[0])
    sym = torch.cat([p, -p])  # symmetric about the origin
    torch.testing.assert_close(poincare_karcher_mean(sym), torch.zeros(3, dtype=F64), rtol=0, atol=1e-15)
    two = torch.cat([p, ball(13, 1, 3)])  # the midpoint of the geodesic
    mid = poincare_karcher_mean(two)
    torch.testing.assert_close(poincare_distance(mid, two[0]), poincare_distance(mid, two[1]))
    weighted = poincare_karcher_mean(two, weights=torch.tensor([1.0, 0.0], dtype=F64))
    torch.testing.assert_close(weighted, two[0])


def test_karcher_mean_warns_when_not_converged():
    with pytest.warns(RuntimeWarning, match="no convergence in 2 steps"):
        _, info = poincare_karcher_mean(ball(14, 6, 3, scale=0.99), max_iter=2, return_info=True)
    assert not info["converged"]


# ---------------------------------------------------------------- geoopt as a peer
def test_geoopt_agrees_away_from_the_boundary():
    """Consistency with the peer where its formulas are well conditioned (‖x‖ <= 0.9, long
    distances); the reference checks (mpmath) are in the registry tests."""
    geoopt = pytest.importorskip("geoopt")
    for c in (1.0, 0.5):
        b = geoopt.PoincareBall(c=c)
        x, y = ball(15, 8, 4, scale=0.9, c=c), ball(16, 8, 4, scale=0.9, c=c)
        torch.testing.assert_close(poincare_distance(x, y, c=c), b.dist(x, y))
        torch.testing.assert_close(mobius_add(x, y, c=c), b.mobius_add(x, y))
        torch.testing.assert_close(poincare_logmap(x, y, c=c), b.logmap(x, y))
        torch.testing.assert_close(poincare_expmap(x, 0.1 * y, c=c), b.expmap(x, 0.1 * y))


def test_geoopt_loses_digits_at_the_boundary_where_we_do_not():
    """The reason for double-double: at ‖x‖ = 1 - 1e-8 geoopt's float64 distance is off by
    more than 1e-2, ours by a few ulps (mpmath reference on the same float64 inputs)."""
    geoopt = pytest.importorskip("geoopt")
    x = torch.zeros(1, 3, dtype=F64)
    x[0, 0] = 1 - 1e-8
    y = torch.zeros(1, 3, dtype=F64)
    y[0, 1] = 1 - 1e-8
    with mpmath.workdps(60):
        xs, ys = [mpmath.mpf(v) for v in x[0].tolist()], [mpmath.mpf(v) for v in y[0].tolist()]
        nx, ny = sum(v * v for v in xs), sum(v * v for v in ys)
        ref = mpmath.acosh(
            1 + 2 * sum((a - b) ** 2 for a, b in zip(xs, ys, strict=True)) / ((1 - nx) * (1 - ny))
        )
        ours = abs(mpmath.mpf(float(poincare_distance(x, y)[0])) - ref) / ref
        peer = abs(mpmath.mpf(float(geoopt.PoincareBall().dist(x, y)[0])) - ref) / ref
    assert ours < 1e-15 < 1e-2 < peer
