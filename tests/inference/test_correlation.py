"""Tests of the rank and row-correlation helpers under Spearman's rho (their doctests moved here)."""

import numpy as np
from scipy import stats

from posgeom.inference._correlation import pearson_rows, rank


def test_rank_averages_ties_as_scipy():
    a = np.array([1.0, 5.0, 3.0, 3.0])
    np.testing.assert_array_equal(rank(a), [1.0, 4.0, 2.5, 2.5])
    np.testing.assert_array_equal(rank(a), stats.rankdata(a))


def test_pearson_rows_matches_numpy_and_is_nan_for_a_constant_row():
    a = np.array([[1.0, 2.0, 3.0, 5.0], [1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 2.0]])
    b = np.array([[2.0, 4.0, 7.0, 9.0], [4.0, 3.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0]])
    r = pearson_rows(a, b)
    np.testing.assert_allclose(r[:2], [np.corrcoef(a[k], b[k])[0, 1] for k in range(2)])
    assert np.isnan(r[2])
