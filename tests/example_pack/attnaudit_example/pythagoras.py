"""Identity 1 of the example paper: sin² x + cos² x = ONE for every real x (ONE = 1; the pack test
sets ONE = 2 to flip the verdict)."""

import sympy as sp
import torch

from attnaudit import Claim, Kind, Relation, control, symbolic, tolerances

ONE = 1
x = sp.Symbol("x", real=True)
TOL = tolerances.Roundoff("1: a sum of two squares of functions bounded by 1")


def evaluate(case):
    t = case["t"]
    lhs = torch.sin(t) ** 2 + torch.cos(t) ** 2
    return lhs, torch.full_like(lhs, ONE), torch.full_like(t, TOL(dtype=t.dtype))


def two_sines(case):
    t = case["t"]
    lhs = 2 * torch.sin(t) ** 2
    return lhs, torch.full_like(lhs, ONE), torch.full_like(t, TOL(dtype=t.dtype))


def sample(ctx, gen):
    yield {"t": 10 * torch.randn(256, generator=gen, dtype=ctx.dtype)}


CLAIMS = (Claim(
    id="example/identity-1", label="Identity 1", section="§1",
    statement=r"\sin^2 x + \cos^2 x = 1", reading="for all real x", kind=Kind.IDENTITY,
    derivation=lambda: [symbolic.exact("pythagoras", sp.sin(x) ** 2 + sp.cos(x) ** 2,
                                       sp.Integer(ONE), role="statement")],
    checks=(Relation(name="pythagoras", lhs="sin²t+cos²t", rel="==", rhs="1", evaluate=evaluate,
                     sample=sample, tolerance=TOL, sampler="Gaussian t, scale 10",
                     controls=(control("sin² in place of cos²", evaluate=two_sines),)),),
),)
