"""The one decision rule: its outcomes, its consistency with the margin, and its error rate on a null."""

import numpy as np
import pytest

from posgeom.inference import Decision, Interval, decide, decide_ladder, family_confidence, t_interval


@pytest.mark.parametrize(("lower", "upper", "margin", "outcome"), [
    (-0.08, -0.03, 0.02, "lower"), (0.03, 0.08, 0.02, "higher"), (-0.01, 0.015, 0.02, "equivalent"),
    (-0.03, -0.005, 0.02, "undetermined"),  # surely below 0, not surely beyond the margin
    (-0.03, -0.005, 0.0, "lower"), (-0.001, 0.001, 0.0, "undetermined"), (-0.03, 0.03, 0.02, "undetermined"),
])
def test_outcomes(lower, upper, margin, outcome):
    d = decide(Interval((lower + upper) / 2, lower, upper, 0.9), margin=margin, label="x")
    assert d.outcome == outcome
    assert d.ranked == (outcome in ("lower", "higher"))
    assert str(d).startswith("x: ")


def test_never_ranks_inside_the_margin():
    rng = np.random.default_rng(0)
    for _ in range(500):
        lo, hi = np.sort(rng.uniform(-0.1, 0.1, 2))
        margin = rng.uniform(0, 0.1)
        d = decide(Interval((lo + hi) / 2, lo, hi, 0.9), margin=margin)
        if d.ranked:  # a ranking needs the whole interval beyond the margin
            assert min(abs(lo), abs(hi)) > margin and lo * hi > 0


def test_false_ranking_rate_on_a_null_is_at_most_alpha():
    """Equal means by construction: 4,000 tables of 12 paired differences, 95% t intervals, margin 0."""
    rng = np.random.default_rng(1)
    n = 4000
    ranked = sum(decide(t_interval(rng.normal(0, 1, 12), confidence=family_confidence(1))).ranked for _ in range(n))
    rate, se = ranked / n, np.sqrt(0.05 * 0.95 / n)
    assert rate <= 0.05 + 3 * se  # at most alpha, beyond Monte Carlo error
    assert rate >= 0.05 - 3 * se  # and not conservative by accident: the t interval is exact here


def test_ladder_needs_every_rung():
    rungs = [decide(Interval(-0.05, -0.08, -0.03, 0.9)), decide(Interval(-0.04, -0.09, 0.01, 0.9))]
    assert decide_ladder(rungs).outcome == "undetermined"
    assert decide_ladder(rungs[:1]).outcome == "lower"
    with pytest.raises(TypeError, match="non-empty"):
        decide_ladder([])


def test_bad_inputs_name_the_problem():
    with pytest.raises(ValueError, match="finite"):
        decide(Interval(np.nan, 0, 1, 0.9))
    with pytest.raises(ValueError, match="exceeds"):
        decide(Interval(0, 1, -1, 0.9))
    with pytest.raises(ValueError, match="margin"):
        decide(Interval(0, -1, 1, 0.9), margin=-0.1)
    with pytest.raises(TypeError, match="estimate"):
        decide((0, -1, 1))
    with pytest.raises(ValueError, match="n_comparisons"):
        family_confidence(0)
    assert isinstance(decide(Interval(0, -1, 1, 0.9)), Decision)
