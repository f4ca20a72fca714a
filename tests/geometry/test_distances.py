import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from scipy.spatial.distance import pdist, squareform
from strategies import distributions

from posgeom import (
    fisher_rao_distances,
    hellinger_distances,
)
from posgeom.geometry.hellinger import _bhattacharyya_coefficients


def test_hellinger_worked_by_hand():
    P = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    D = hellinger_distances(P)
    expected = np.sqrt(1 - np.sqrt(0.5))
    np.testing.assert_allclose(D, [[0, 1, expected], [1, 0, expected], [expected, expected, 0]], atol=1e-15)


def test_fisher_rao_worked_by_hand():
    P = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    F = fisher_rao_distances(P)
    np.testing.assert_allclose(F[0, 1], np.pi)
    np.testing.assert_allclose(F[0, 2], np.pi / 2)


def test_sparse_and_dense_agree_and_match_chordal_formula():
    rng = np.random.default_rng(0)
    W = rng.random((6, 30)) * (rng.random((6, 30)) < 0.3)
    W[:, 0] += 0.1
    P = W / W.sum(axis=1, keepdims=True)
    dense = hellinger_distances(P)
    np.testing.assert_allclose(hellinger_distances(sp.csr_matrix(P)), dense, atol=1e-14)
    chordal = squareform(pdist(np.sqrt(P))) / np.sqrt(2)
    np.testing.assert_allclose(dense, chordal, atol=1e-7)


@given(distributions(min_rows=3))
def test_hellinger_is_a_bounded_metric(P):
    D = hellinger_distances(P)
    assert np.all(D >= 0) and np.all(D <= 1)
    assert np.array_equal(D, D.T) and np.all(np.diag(D) == 0)
    # triangle inequality d(i,k) <= d(i,j) + d(j,k) for all i, j, k (index [i, j, k]), up to the sqrt(eps)
    # rounding of sqrt(1 - BC)
    assert np.all(D[:, :, None] + D[None, :, :] >= D[:, None, :] - 1e-7)


@given(distributions(min_rows=3))
def test_fisher_rao_is_a_bounded_metric_dominating_hellinger(P):
    F = fisher_rao_distances(P)
    H = hellinger_distances(P)
    assert np.all(F >= 0) and np.all(F <= np.pi + 1e-12)
    assert np.array_equal(F, F.T)
    assert np.all(F[:, :, None] + F[None, :, :] >= F[:, None, :] - 1e-7)
    assert np.all(F >= 2 * np.sqrt(2) * H - 1e-7)
    np.testing.assert_allclose(F, 4 * np.arcsin(H / np.sqrt(2)), atol=1e-6)


def test_bhattacharyya_diagonal_is_one():
    P = np.array([[0.2, 0.8], [0.7, 0.3]])
    assert np.all(np.diag(_bhattacharyya_coefficients(P)) == 1.0)


@pytest.mark.parametrize(
    "P, match",
    [
        (np.array([[0.5, 0.6]]), "sum to 1"),
        (np.array([[1.5, -0.5]]), "negative"),
        (np.array([[np.nan, 1.0]]), "NaN"),
        (np.array([0.5, 0.5]), "2-D"),
        (np.zeros((2, 3)), "no observations"),
    ],
)
def test_hellinger_bad_input(P, match):
    with pytest.raises(ValueError, match=match):
        hellinger_distances(P)


def test_toeplitz_part_and_defect():
    from scipy.linalg import toeplitz

    from posgeom import shift_equivariance_defect
    from posgeom.geometry.shift import lag_profile as lag_profile
    from posgeom.geometry.shift import toeplitz_part

    T = toeplitz([0.0, 1.0, 1.5, 1.7])
    np.testing.assert_allclose(lag_profile(T), [0, 1, 1.5, 1.7])
    np.testing.assert_allclose(toeplitz_part(T), T)
    assert shift_equivariance_defect(T) == pytest.approx(0.0, abs=1e-15)
    X = T.copy()
    X[0, 1] = X[1, 0] = 2.0
    assert 0 < shift_equivariance_defect(X) <= 1
    with pytest.raises(ValueError, match="undefined"):
        shift_equivariance_defect(np.zeros((3, 3)))


def test_dense_and_sparse_product_paths_agree(monkeypatch):
    import posgeom.geometry.hellinger as geometry

    rng = np.random.default_rng(3)
    W = rng.random((20, 300)) * (rng.random((20, 300)) < 0.2)
    W[:, 0] += 0.1
    P = sp.csr_matrix(W / W.sum(axis=1, keepdims=True))
    dense_path = hellinger_distances(P)
    monkeypatch.setattr(geometry, "_DENSE_PRODUCT_DENSITY", 2.0)  # force the sparse product
    np.testing.assert_allclose(hellinger_distances(P), dense_path, atol=1e-12)
