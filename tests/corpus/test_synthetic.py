import numpy as np
import pytest

from posgeom import (
    REGIMES,
    hellinger_distances,
    position_counts,
    position_distributions,
    synthetic_corpus,
    synthetic_distributions,
)


@pytest.mark.parametrize("regime", REGIMES)
def test_same_seed_same_corpus(regime):
    a = synthetic_corpus(20, 8, 30, rng=5, regime=regime)
    b = synthetic_corpus(20, 8, 30, rng=5, regime=regime)
    assert a.shape == (20, 8) and a.dtype == np.int64
    np.testing.assert_array_equal(a, b)
    assert a.min() >= 0 and a.max() < 30


def test_regimes_have_the_geometry_they_promise():
    D = {r: hellinger_distances(synthetic_distributions(16, 50, rng=0, regime=r)) for r in REGIMES}
    assert D["stationary"].max() < 1e-6
    # smooth: distances grow with |i - j| near the diagonal and neighbours are much closer than the ends;
    # abrupt: zero inside a block, positive across
    assert np.all(np.diff(D["smooth"][0, :6]) > 0)
    assert np.diag(D["smooth"], 1).max() < D["smooth"][0, -1] / 3
    assert D["abrupt"][0, 3] < 1e-6 and D["abrupt"][0, 4] > 0.1


def test_empirical_distributions_converge_to_the_model():
    mu = synthetic_distributions(6, 20, rng=1)
    X = synthetic_corpus(20000, 6, 20, rng=1)
    emp = position_distributions(position_counts(X, 6, 20)).toarray()
    assert np.abs(emp - mu).max() < 0.02


@pytest.mark.parametrize(
    "kwargs, exc",
    [
        (dict(regime="wavy"), ValueError),
        (dict(bandwidth=0.0), ValueError),
        (dict(n_topics=0), ValueError),
        (dict(rng=-1), ValueError),
        (dict(rng=1.5), TypeError),
    ],
)
def test_bad_parameters(kwargs, exc):
    args = dict(rng=0) | kwargs
    with pytest.raises(exc):
        synthetic_distributions(8, 10, **args)
