"""``posgeom.checks.reproduces``, the stored-run check: exact re-runs pass, fresh draws of the stored seeds pass at
its stated rate, a stale run (shifted by several seed SDs) fails, and bad shapes are refused."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from posgeom.checks import reproduces


def test_an_exact_rerun_passes_bit_for_bit():
    stored = np.random.default_rng(0).normal(size=(12, 3))
    assert reproduces(stored[:2], stored) == (True, "bit for bit")


def test_fresh_draws_of_the_stored_distribution_pass_at_the_stated_rate():
    # the null: the re-run is a new draw of what the stored seeds are draws of; 99% prediction interval, Bonferroni
    rng = np.random.default_rng(1)
    trials = 2000
    passed = sum(reproduces(rng.normal(size=(2, 3)), rng.normal(size=(16, 3)))[0] for _ in range(trials))
    bound = stats.binom.ppf(0.001, trials, 0.99)  # the rate's lower 0.1% quantile at exactly 0.99
    assert passed >= bound, f"{passed} of {trials} fresh draws passed, below {bound}"


def test_a_stale_run_fails():
    # negative control: the same seeds shifted by five seed SDs (what a changed model or task would do)
    rng = np.random.default_rng(2)
    stored = rng.normal(size=(16, 3))
    ok, how = reproduces(stored[:2] + 5 * stored.std(axis=0, ddof=1), stored)
    assert not ok and how.endswith("no")


def test_shapes_that_do_not_match_are_refused():
    with pytest.raises(ValueError, match="first seeds"):
        reproduces(np.zeros((2, 4)), np.zeros((16, 3)))
    with pytest.raises(ValueError, match="3 or more"):
        reproduces(np.zeros(1), np.zeros(2))
