"""Tests of posgeom.monotonicity: worked cases, invariances, the permutation null and bad inputs."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import kendalltau, spearmanr

import posgeom as pg
from posgeom.encodings import permutation_test, rank_correlations, triple_monotonicity
from posgeom.encodings.monotonicity import _pairs, _position_distances


def line(n):
    return np.arange(float(n))[:, None]


def test_points_on_a_line_are_perfectly_monotone():
    r = rank_correlations(line(10))
    assert r.spearman == pytest.approx(1.0)
    # Kendall tau_b with the many tied lags is < 1 but equals the tau_b of lag with itself.
    i, j = _pairs(10, None)
    assert r.kendall == pytest.approx(kendalltau(j - i, j - i).statistic)
    assert r.n_positions == 10 and r.n_pairs == 45
    t = triple_monotonicity(line(10))
    assert t.overall == 1.0 and np.all(t.per_position == 1.0)


def test_reversed_order_is_antimonotone():
    # Distances that decrease with the lag: D_ij = n - |i - j| off the diagonal.
    n = 8
    lag = np.abs(np.subtract.outer(np.arange(n), np.arange(n)))
    D = np.where(lag > 0, n - lag, 0).astype(float)
    assert rank_correlations(D, kind="distances").spearman == pytest.approx(-1.0)
    t = triple_monotonicity(D, kind="distances")
    assert t.overall == 0.0


def test_matches_scipy_on_random_encoding_and_restrictions():
    rng = np.random.default_rng(0)
    P = rng.normal(size=(30, 5))
    D = _position_distances(P)
    i, j = np.triu_indices(20, k=1)
    keep = (j - i) <= 5
    r = rank_correlations(P, first=20, max_lag=5)
    assert r.spearman == pytest.approx(spearmanr(D[i[keep], j[keep]], (j - i)[keep]).statistic)
    assert r.kendall == pytest.approx(kendalltau(D[i[keep], j[keep]], (j - i)[keep]).statistic)
    assert r.n_positions == 20 and r.n_pairs == int(keep.sum()) and r.max_lag == 5


def test_sinusoidal_encoding_is_monotone_at_small_lags():
    P = pg.sinusoidal_encoding(64, 64)
    assert rank_correlations(P).spearman > 0.5
    assert triple_monotonicity(P).overall > 0.7


@given(st.integers(min_value=0, max_value=10_000))
def test_invariant_under_rigid_motions_and_scaling(seed):
    rng = np.random.default_rng(seed)
    P = rng.normal(size=(12, 4))
    Q, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    moved = 3.0 * P @ Q + rng.normal(size=4)
    a, b = rank_correlations(P), rank_correlations(moved)
    assert a.spearman == pytest.approx(b.spearman, abs=1e-9)
    assert a.kendall == pytest.approx(b.kendall, abs=1e-9)
    assert triple_monotonicity(P).overall == pytest.approx(triple_monotonicity(moved).overall)


def test_triple_score_worked_example():
    # 4 positions; anchor 0 sees D = [1, 3, 2] at lags 1, 2, 3: pairs (1,2) ok, (1,3) ok, (2,3) not.
    D = np.array([[0, 1, 3, 2], [1, 0, 1, 1], [3, 1, 0, 1], [2, 1, 1, 0]], dtype=float)
    t = triple_monotonicity(D, kind="distances")
    assert t.per_position[0] == pytest.approx(2 / 3)
    # anchor 3 sees (lag 1, 2, 3) = (1, 1, 2): all monotone (ties count).
    assert t.per_position[3] == 1.0
    assert t.n_triples == 3 + 1 + 1 + 3


def test_permutation_fast_path_equals_direct_computation():
    rng = np.random.default_rng(3)
    P = np.cumsum(rng.normal(size=(25, 3)), axis=0)
    res = permutation_test(P, rng=7, n_permutations=5)
    gen = np.random.default_rng(7)
    for b in range(5):
        perm = gen.permutation(25)
        assert res.null[b] == pytest.approx(rank_correlations(P[perm], kendall=False).spearman, abs=1e-12)
    assert res.statistic == pytest.approx(rank_correlations(P).spearman)


def test_permutation_test_separates_ordered_from_shuffled():
    rng = np.random.default_rng(1)
    walk = np.cumsum(rng.normal(size=(40, 3)), axis=0)
    assert permutation_test(walk, rng=0, n_permutations=99).p_value == pytest.approx(0.01)
    noise = rng.normal(size=(40, 3))
    assert permutation_test(noise, rng=0, n_permutations=99).p_value > 0.05
    k = permutation_test(walk, rng=0, n_permutations=20, method="kendall", max_lag=10)
    assert k.p_value == pytest.approx(1 / 21)


def test_permutation_test_is_reproducible():
    P = np.random.default_rng(2).normal(size=(15, 2))
    a = permutation_test(P, rng=5, n_permutations=30)
    b = permutation_test(P, rng=5, n_permutations=30)
    np.testing.assert_array_equal(a.null, b.null)


def test_bad_inputs():
    with pytest.raises(ValueError, match="all pair distances are equal"):
        rank_correlations(np.eye(5))  # a regular simplex
    with pytest.raises(ValueError, match="kind"):
        rank_correlations(line(4), kind="matrix")
    with pytest.raises(ValueError, match="first=9 exceeds"):
        rank_correlations(line(4), first=9)
    with pytest.raises(ValueError, match="max_lag=7 exceeds"):
        rank_correlations(line(5), max_lag=7)
    with pytest.raises(ValueError, match="at least 3"):
        triple_monotonicity(line(2))
    with pytest.raises(ValueError, match="NaN"):
        rank_correlations(np.array([[0.0], [np.nan], [1.0]]))
    with pytest.raises(ValueError, match="not symmetric"):
        rank_correlations(np.array([[0, 1, 2], [1, 0, 1], [3, 1, 0]], float), kind="distances")
    with pytest.raises(ValueError, match="method"):
        permutation_test(line(5), rng=0, method="pearson")
    with pytest.raises(TypeError, match="rng"):
        permutation_test(line(5), rng=1.5)
