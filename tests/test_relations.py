"""checks.relations: margins, the evidence of a relation (counts, closest approach, the worst
random case), Hypothesis search and shrinking, and witnesses that round-trip through JSON."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from attnaudit.checks import Relation, tolerances
from attnaudit.checks.context import Context
from attnaudit.checks.relations import (
    _relative,
    case_from_json,
    case_to_json,
    check_relation,
    evaluate_case,
    replay_witness,
    slice_case,
)
from attnaudit.checks.witnesses import WITNESS_SCHEMA

TOL = tolerances.Systematic(0.5, "a fixed absolute tolerance")


def ctx(profile="quick"):
    return Context("toy/relations", seed=3, profile=profile)


def relation(evaluate, batches, rel="<=", strategy=None, **changes):
    def sample(ctx_, gen):
        yield from batches(ctx_, gen)

    base = dict(name="rel", lhs="L", rel=rel, rhs="R", evaluate=evaluate, sample=sample,
                tolerance=TOL, sampler="given values", strategy=strategy)
    return Relation(**(base | changes))


def values(*arrays):
    """A sampler yielding the given batches of (lhs, rhs) values."""

    def batches(ctx_, gen):
        for lhs, rhs in arrays:
            yield {"l": torch.tensor(lhs, dtype=torch.float64), "r": torch.tensor(rhs, dtype=torch.float64)}

    return batches


def plain(case):
    return case["l"], case["r"], torch.full_like(case["l"], 0.5)


def test_evidence_of_a_holding_relation():
    ev = check_relation(relation(plain, values(([1.0, 2.0], [2.0, 4.0]), ([3.0], [3.25]))), ctx())
    assert ev["status"] == "agrees" and ev["witness"] is None
    assert (ev["cases"], ev["violations"]) == (3, 0)
    # margins −1.5, −2.5, −0.75 over max(|rhs|, tol) = 2, 4, 3.25
    assert ev["closest_relative_margin"] == pytest.approx(-0.75 / 3.25)
    assert ev["relation"] == "L <= R" and (ev["lhs"], ev["rel"], ev["rhs"]) == ("L", "<=", "R")
    assert ev["tolerance"] == TOL.describe() and ev["sampler"] == "given values"
    assert ev["type"] == "relation" and ev["name"] == "rel" and ev["role"] == "statement"
    assert ev["reading"] is None and ev["hypothesis"] is None
    assert ev["summary"] == f"holds on 3 random cases; closest relative margin {-0.75 / 3.25:.3g}"


def test_the_worst_random_violation_becomes_the_witness():
    ev = check_relation(relation(plain, values(([1.0, 5.0], [2.0, 4.0]), ([3.0, 9.0, 4.0], [1.0, 2.0, 3.0]))),
                        ctx())
    assert ev["status"] == "disagrees" and (ev["cases"], ev["violations"]) == (5, 4)
    w = ev["witness"]
    # relative margins of the violations: 0.5/4, 1.5/1, 6.5/2, 0.5/3 → the second batch's second case
    assert (w["lhs"], w["rhs"], w["tol"], w["margin"]) == (9.0, 2.0, 0.5, 6.5)
    assert w["case_index"] == 3 and w["found_by"] == "random" and w["shrunk"] is False
    assert ev["closest_relative_margin"] == pytest.approx(6.5 / 2)
    assert w["schema"] == WITNESS_SCHEMA and w["claim"] == "toy/relations" and w["check"] == "rel"
    assert w["relation"] == "L <= R" and w["seed"] == 3 and w["device"] == "cpu"
    assert w["inputs"] == {"l": {"dtype": "float64", "shape": [1], "data": [9.0]},
                           "r": {"dtype": "float64", "shape": [1], "data": [2.0]}}
    assert ev["summary"] == ("violated on 4/5 random cases; witness: L = 9, R = 2 (tol 0.5)")
    # the witness replays
    assert replay_witness(relation(plain, values()), w) == {"lhs": 9.0, "rhs": 2.0, "tol": 0.5,
                                                           "margin": 6.5}


def test_a_later_smaller_or_equal_violation_does_not_replace_the_worst():
    ev = check_relation(relation(plain, values(([9.0], [2.0]), ([3.0], [2.0]))), ctx())
    assert ev["witness"]["lhs"] == 9.0 and ev["witness"]["case_index"] == 0
    ev = check_relation(relation(plain, values(([9.0], [2.0]), ([1.0, 9.0], [2.0, 2.0]))), ctx())
    assert ev["witness"]["case_index"] == 0


def test_only_a_violating_case_becomes_the_witness():
    ev = check_relation(relation(plain, values(([1.0, 5.0, 0.0], [2.0, 4.0, 3.0]))), ctx())
    assert ev["witness"]["lhs"] == 5.0 and ev["witness"]["case_index"] == 1


def test_the_sampler_gets_a_generator_seeded_by_the_check_name():
    seeds = []

    def batches(ctx_, gen):
        seeds.append(gen.initial_seed())
        yield {"l": torch.tensor([1.0]), "r": torch.tensor([2.0])}

    check_relation(relation(plain, batches, name="named"), ctx())
    assert seeds == [ctx().seed_for("relation:named")]


def test_a_float_tolerance_is_kept_in_the_values_precision():
    out = evaluate_case(relation(lambda c: (c["l"], c["r"], 0.1), values()),
                        {"l": torch.tensor([1.0], dtype=torch.float64),
                         "r": torch.tensor([1.0], dtype=torch.float64)})
    assert out["tol"].tolist() == [0.1] and out["margin"].tolist() == [-0.1]


def test_relative_margin_uses_the_bound_or_the_tolerance():
    assert _relative(np.array([1.0]), np.array([4.0]), np.array([0.5])).tolist() == [0.25]
    assert _relative(np.array([1.0]), np.array([-4.0]), np.array([0.5])).tolist() == [0.25]
    assert _relative(np.array([1.0]), np.array([0.0]), np.array([0.5])).tolist() == [2.0]
    assert _relative(np.array([1.0]), np.array([0.0]), np.array([0.0]))[0] == pytest.approx(1e300)


def test_evaluate_case_checks_shapes_and_finiteness():
    with pytest.raises(ValueError, match=r"an rhs of its shape \(or a scalar\), got \(2,\) and \(3,\)"):
        evaluate_case(relation(plain, values()), {"l": torch.ones(2), "r": torch.ones(3)})
    with pytest.raises(ValueError, match="1-d lhs"):
        evaluate_case(relation(plain, values()), {"l": torch.ones(2, 2), "r": torch.ones(2, 2)})
    bad = {"l": torch.tensor([1.0, math.nan, math.inf]), "r": torch.tensor([1.0, 1.0, 1.0])}
    with pytest.raises(FloatingPointError, match="non-finite value on case 1"):
        evaluate_case(relation(plain, values()), bad)
    bad = {"l": torch.tensor([1.0, 1.0]), "r": torch.tensor([1.0, -math.inf])}
    with pytest.raises(FloatingPointError, match="on case 1"):
        evaluate_case(relation(plain, values()), bad)
    # a scalar tolerance is broadcast to every case
    out = evaluate_case(relation(lambda c: (c["l"], c["r"], 0.25), values()),
                        {"l": torch.tensor([1.0, 2.0]), "r": torch.tensor([1.0, 1.0])})
    assert out["tol"].tolist() == [0.25, 0.25] and out["margin"].tolist() == [-0.25, 0.75]
    assert set(out) == {"lhs", "rhs", "tol", "margin"} and out["lhs"].dtype == np.float64
    # and so is a constant right-hand side, a number or a 0-d tensor
    for bound in (1.5, torch.tensor(1.5, dtype=torch.float64)):
        out = evaluate_case(relation(lambda c, b=bound: (c["l"], b, 0.0), values()),
                            {"l": torch.tensor([1.0, 2.0], dtype=torch.float64)})
        assert out["rhs"].tolist() == [1.5, 1.5] and out["margin"].tolist() == [-0.5, 0.5]


def test_a_sampler_without_cases_is_an_error():
    with pytest.raises(ValueError, match="the sampler produced no cases"):
        check_relation(relation(plain, values()), ctx())


def test_cases_round_trip_through_json_and_slice():
    case = {"x": torch.arange(6, dtype=torch.float32).reshape(3, 2), "k": 4, "s": "name", "f": 1.5,
            "d": torch.tensor([0.1, 1 / 3], dtype=torch.float64), "i": torch.tensor([1, 2]),
            "b": True, "none": None, "scalar": torch.tensor(2.0)}
    data = case_to_json(case)
    assert data["x"] == {"dtype": "float32", "shape": [3, 2], "data": [[0, 1], [2, 3], [4, 5]]}
    assert data["k"] == {"value": 4} and data["none"] == {"value": None}
    back = case_from_json(data)
    assert torch.equal(back["x"], case["x"]) and back["x"].dtype == torch.float32
    for key in ("d", "i"):
        assert back[key].dtype == case[key].dtype and torch.equal(back[key], case[key]), key
    assert (back["k"], back["s"], back["f"], back["b"], back["none"]) == (4, "name", 1.5, True, None)
    assert back["scalar"].shape == () and float(back["scalar"]) == 2.0
    one = slice_case(case, 1)
    assert one["x"].tolist() == [[2.0, 3.0]] and one["k"] == 4 and float(one["scalar"]) == 2.0
    with pytest.raises(TypeError, match="case entry 'bad' of type list cannot be saved"):
        case_to_json({"bad": [1, 2]})


def _pairs_strategy(ctx_):
    from hypothesis import strategies as st

    return st.integers(0, 100).map(lambda v: {"l": ctx_.tensor([float(v)]), "r": ctx_.tensor([10.0])})


def test_hypothesis_finds_and_shrinks_a_violation_the_random_cases_miss():
    rel = relation(plain, values(([1.0], [10.0])), strategy=_pairs_strategy, max_examples=40)
    ev = check_relation(rel, ctx())
    assert ev["violations"] == 0 and ev["status"] == "disagrees"
    w = ev["witness"]
    assert w["found_by"] == "hypothesis" and w["shrunk"] and w["case_index"] is None
    assert w["margin"] > 0 and w["lhs"] > 10.5
    assert w["lhs"] == 11.0  # shrunk to the smallest violating integer
    assert 1 <= ev["hypothesis"]["examples"] <= 40 and "witness" not in ev["hypothesis"]
    assert ev["hypothesis"]["closest_relative_margin"] >= w["margin"] / 10.0  # the largest seen
    assert ev["summary"].startswith("violated on 0/1 random cases; witness: L = ")


def test_hypothesis_search_that_finds_nothing_reports_its_examples():
    from hypothesis import strategies as st

    def below(ctx_):
        return st.floats(0.0, 10.0).map(lambda v: {"l": ctx_.tensor([v]), "r": ctx_.tensor([10.0])})

    rel = relation(plain, values(([1.0], [10.0])), strategy=below, max_examples=15)
    ev = check_relation(rel, ctx())
    assert ev["status"] == "agrees" and ev["witness"] is None
    assert ev["hypothesis"]["examples"] == 15
    assert -1.0 <= ev["hypothesis"]["closest_relative_margin"] <= -0.05
    assert ev["summary"] == (f"holds on 1 random cases and 15 adversarial ones; closest relative margin "
                             f"{ev['closest_relative_margin']:.3g}")
    full = check_relation(rel, ctx("full"))
    assert full["hypothesis"]["examples"] == 75


def test_a_random_witness_is_kept_when_hypothesis_finds_none():
    from hypothesis import strategies as st

    def below(ctx_):
        return st.floats(0.0, 10.0).map(lambda v: {"l": ctx_.tensor([v]), "r": ctx_.tensor([10.0])})

    rel = relation(plain, values(([20.0], [10.0])), strategy=below, max_examples=10)
    ev = check_relation(rel, ctx())
    assert ev["witness"]["found_by"] == "random" and ev["witness"]["lhs"] == 20.0


def test_a_search_does_not_depend_on_which_other_modules_are_loaded(tmp_path, monkeypatch):
    """Hypothesis mixes the literals of loaded non-site-packages modules into its draws; the engine's
    searches must not (they would change with every edit to any claim, and with the install mode)."""
    from hypothesis import strategies as st

    def floats(ctx_):
        return st.floats(0.0, 10.0).map(lambda v: {"l": ctx_.tensor([v]), "r": ctx_.tensor([10.0])})

    seen = []

    def recording(case):
        seen.append(float(case["l"][0]))
        return plain(case)

    rel = relation(recording, values(([1.0], [10.0])), strategy=floats, max_examples=200)
    check_relation(rel, ctx())
    alone = list(seen)
    literals = ", ".join(f"{7 + k / 997:.12f}" for k in range(400))  # in the strategy's range
    (tmp_path / "many_literals.py").write_text(f"VALUES = ({literals})\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import many_literals  # noqa: F401  (a local module Hypothesis would read)

    seen.clear()
    check_relation(rel, ctx())
    assert seen == alone
