"""Tests of the resolution sweep (posgeom.geometry.resolution_sweep): same splits, the rule as the default."""

from __future__ import annotations

import numpy as np
import pytest

from posgeom.corpus import SequenceIncidence, synthetic_corpus
from posgeom.geometry import Resolved, resolution_sweep


@pytest.fixture(scope="module")
def inc():
    return SequenceIncidence.from_sequences(synthetic_corpus(600, 5, 30, rng=2, regime="abrupt"), 5, 30)


def test_the_rules_point_of_the_sweep_is_the_resolved_estimate(inc):
    sweep = resolution_sweep(inc, rng=7, n_splits=6)
    assert sweep.resolutions == (sweep.rule,)
    est = Resolved(resolution=sweep.rule, n_splits=6).distances(inc, rng=7)
    np.testing.assert_allclose(sweep.squared[0], est.squared, atol=1e-14)


def test_grid_order_mass_and_shared_splits(inc):
    rule = resolution_sweep(inc, rng=0, n_splits=4).rule
    ks, ms = (0, 3, 10), (rule.texts_per_position // 2, rule.texts_per_position)
    sweep = resolution_sweep(inc, rng=0, n_tokens=ks, texts_per_position=ms, n_splits=4)
    assert [(len(r.tokens), r.texts_per_position) for r in sweep.resolutions] == [(k, m) for m in ms for k in ks]
    mass = sweep.mass_kept.reshape(len(ms), len(ks))
    assert np.all(np.diff(mass, axis=1) > 0) and np.all(mass[:, 0] == 0) and np.all(mass <= 1)
    # K = 0 keeps only "other": every distance is exactly 0 (a negative control of the estimand's content)
    assert np.all(sweep.squared[0] == 0) and np.any(sweep.squared[2] > 0)
    # the same splits at every resolution: the sweep at one (K, m*) equals the sweep of that point alone
    alone = resolution_sweep(inc, rng=0, n_tokens=(3,), texts_per_position=(ms[1],), n_splits=4)
    np.testing.assert_array_equal(alone.squared[0], sweep.squared[4])


def test_too_many_texts_per_position_is_named(inc):
    with pytest.raises(ValueError, match="texts_per_position"):
        resolution_sweep(inc, rng=0, texts_per_position=(10_000,), n_splits=2)
