import numpy as np
import pytest
from hypothesis import given
from scipy.spatial.distance import pdist, squareform
from strategies import configurations

from posgeom import (
    classical_mds,
    fisher_rao_distances,
    hellinger_distances,
    synthetic_distributions,
)
from posgeom.geometry.mds import double_centered_gram as double_centered_gram


def test_square_is_recovered_in_two_dimensions():
    X = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)
    D = squareform(pdist(X))
    result = classical_mds(D)
    assert result.rank == 2
    np.testing.assert_allclose(squareform(pdist(result.embedding)), D, atol=1e-12)
    np.testing.assert_allclose(result.eigenvalues[:2], [1.0, 1.0])  # B = centred Gram of the square


@given(configurations())
def test_mds_reproduces_any_euclidean_configuration(X):
    D = squareform(pdist(X))
    if D.max() == 0:
        return
    result = classical_mds(D)
    assert result.rank <= min(X.shape[1], X.shape[0] - 1)
    np.testing.assert_allclose(squareform(pdist(result.embedding)), D, atol=1e-8 * max(1.0, D.max()))


def test_double_centering_formula():
    D = squareform(pdist(np.random.default_rng(0).normal(size=(5, 3))))
    J = np.eye(5) - np.ones((5, 5)) / 5
    np.testing.assert_allclose(double_centered_gram(D), -0.5 * J @ (D**2) @ J, atol=1e-12)


def test_hellinger_is_euclidean_but_fisher_rao_is_not():
    P = synthetic_distributions(12, 40, rng=3, regime="smooth", n_topics=4)
    h = classical_mds(hellinger_distances(P))
    f = classical_mds(fisher_rao_distances(P))
    assert h.negative_mass == 0.0
    assert f.negative_mass > 1e-6


def test_truncated_rank_and_signs_are_deterministic():
    D = squareform(pdist(np.random.default_rng(1).normal(size=(8, 4))))
    a, b = classical_mds(D, rank=2), classical_mds(D, rank=2)
    assert a.embedding.shape == (8, 2)
    np.testing.assert_array_equal(a.embedding, b.embedding)
    assert np.all(a.eigenvalues[:-1] >= a.eigenvalues[1:])


@pytest.mark.parametrize("rank, match", [(0, ">= 1"), (9, "larger than the number"), (5, "numerical rank")])
def test_rank_errors(rank, match):
    D = squareform(pdist(np.random.default_rng(1).normal(size=(8, 4))))
    with pytest.raises(ValueError, match=match):
        classical_mds(D, rank=rank)


@pytest.mark.parametrize(
    "D, match",
    [
        (np.array([[0, 1], [2, 0]]), "not symmetric"),
        (np.array([[0, -1], [-1, 0]]), "negative"),
        (np.array([[1, 1], [1, 1]]), "zero diagonal"),
        (np.zeros((2, 3)), "square"),
        (np.array([[0, np.inf], [np.inf, 0]]), "NaN or infinite"),
        (np.zeros((1, 1)), "at least 2"),
    ],
)
def test_bad_distance_matrices(D, match):
    with pytest.raises(ValueError, match=match):
        classical_mds(D)
