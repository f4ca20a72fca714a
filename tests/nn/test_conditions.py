import numpy as np
import pytest

from posgeom import synthetic_corpus
from posgeom.nn import (
    multiset_bound,
    non_degeneracy,
    non_stationarity,
    order_sensitivity,
    sequence_bound,
)


def test_non_stationarity_separates_regimes():
    smooth = non_stationarity(synthetic_corpus(400, 6, 12, rng=0, regime="smooth"), 12, rng=0)
    assert smooth.fraction_distinct > 0.9
    assert np.all(smooth.distances >= 0) and np.allclose(smooth.distances, smooth.distances.T)
    assert not smooth.distinct.diagonal().any()


def test_non_stationarity_test_is_valid_under_stationarity():
    # One pair per corpus, K independent stationary corpora: the permutation test is exact, so the number of
    # corpora declared distinct is at most Binomial(K, alpha); a stated 0.999 quantile bounds it. The pairs of
    # one corpus are not independent (they share positions), hence one pair per corpus.
    from scipy.stats import binom

    K, alpha = 40, 0.05
    hits = sum(
        non_stationarity(synthetic_corpus(200, 2, 12, rng=k, regime="stationary"), 12, rng=1000 + k,
                         alpha=alpha).distinct[0, 1]
        for k in range(K)
    )
    assert hits <= binom.ppf(0.999, K, alpha), f"{hits} of {K} stationary corpora declared non-stationary"
    smooth_hits = sum(
        non_stationarity(synthetic_corpus(200, 2, 12, rng=k, regime="abrupt", n_topics=2), 12, rng=1000 + k,
                         alpha=alpha).distinct[0, 1]
        for k in range(K)
    )
    assert smooth_hits > binom.ppf(0.999, K, alpha), "the test must detect a real difference (negative control)"


def test_non_stationarity_noise_floor_is_positive_and_reproducible():
    X = synthetic_corpus(100, 4, 8, rng=1, regime="stationary")
    a, b = non_stationarity(X, 8, rng=3), non_stationarity(X, 8, rng=3)
    iu = np.triu_indices(4, 1)
    assert np.all(a.floor[iu] > 0)
    np.testing.assert_array_equal(a.p_values, b.p_values)


def test_non_stationarity_identical_columns_are_not_distinct():
    rng = np.random.default_rng(0)
    col = rng.integers(0, 5, size=200)
    X = np.stack([col, col, rng.integers(0, 5, size=200)], axis=1)
    res = non_stationarity(X, 5, rng=0)
    assert res.distances[0, 1] == 0 and not res.distinct[0, 1] and res.p_values[0, 1] == 1.0


def test_bounds_by_hand():
    X = np.array([[0, 1], [1, 0], [0, 1], [2, 2]])
    y = np.array([1, 0, 1, 0])
    assert multiset_bound(X, y) == 0.75  # group {0,1}: labels 1,0,1 -> 2 right; {2,2}: 1 right
    assert sequence_bound(X, y) == 1.0
    res = order_sensitivity(X, y)
    assert res.holds and res.gap == 0.25


def test_bag_of_words_labels_are_order_insensitive():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(300, 5))
    X = np.concatenate([X, X[:, ::-1]])
    y = (X == 0).sum(axis=1) % 2
    assert not order_sensitivity(X, y).holds


def test_non_degeneracy():
    X = np.array([[0, 1], [1, 1], [2, 1]])
    res = non_degeneracy(X, np.array([0, 1, 1]))
    assert res.constant_positions == (1,) and not res.holds
    assert non_degeneracy(X[:, :1], np.array([0, 1, 1])).holds
    assert not non_degeneracy(X[:, :1], np.array([1, 1, 1])).holds


def test_bad_inputs():
    with pytest.raises(ValueError, match="2-D"):
        multiset_bound(np.zeros(3, dtype=int), np.zeros(3, dtype=int))
    with pytest.raises(TypeError, match="integer"):
        multiset_bound(np.zeros((3, 2)), np.zeros(3, dtype=int))
    with pytest.raises(ValueError, match="shape"):
        multiset_bound(np.zeros((3, 2), dtype=int), np.zeros(2, dtype=int))
    with pytest.raises(ValueError, match="vocabulary"):
        non_stationarity(np.full((3, 2), 9), 5, rng=0)
    with pytest.raises(ValueError, match="alpha"):
        non_stationarity(np.zeros((3, 2), dtype=int), 5, rng=0, alpha=1.5)


def test_within_sequence_permutation_is_calibrated_on_dependent_pairs():
    # x_1 is a copy of x_0 in 80% of the sequences: exchangeable, strongly dependent. The within-sequence test keeps
    # its level; it must also detect a pair whose distributions differ.
    from scipy.stats import binom

    K, alpha = 40, 0.05
    hits = 0
    for k in range(K):
        rng = np.random.default_rng(k)
        x0 = rng.integers(6, size=200)
        x1 = np.where(rng.random(200) < 0.8, x0, rng.integers(6, size=200))
        hits += non_stationarity(np.column_stack([x0, x1]), 6, rng=k, alpha=alpha, n_permutations=99,
                                 permutation="within").distinct[0, 1]
    assert hits <= binom.ppf(0.999, K, alpha)
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(3, size=200), rng.integers(3, 6, size=200)])
    assert non_stationarity(X, 6, rng=0, permutation="within").distinct[0, 1]


def test_within_sequence_permutation_rejects_unknown_scheme():
    with pytest.raises(ValueError, match="permutation"):
        non_stationarity(np.zeros((3, 2), dtype=int), 5, rng=0, permutation="paired")
