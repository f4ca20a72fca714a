import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.spatial.distance import pdist, squareform
from strategies import configurations

from posgeom import optimal_scale, pairwise_distances, stress_of_distances, stress_of_encoding


def test_stress_worked_by_hand():
    D = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]], dtype=float)
    E = np.array([[0, 2, 2], [2, 0, 1], [2, 1, 0]], dtype=float)
    assert stress_of_distances(E, D) == pytest.approx(1 / 6)
    a = optimal_scale(E, D)
    assert a == pytest.approx(7 / 9)
    assert stress_of_distances(E, D, scale="optimal") == pytest.approx(1 - 49 / (9 * 6))


def test_paper_definition_on_an_encoding():
    P = np.array([[0.0], [3.0], [4.0]])
    D = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]], dtype=float)
    assert stress_of_encoding(P, D) == pytest.approx(((3 - 1) ** 2 + (4 - 2) ** 2 + (1 - 1) ** 2) / 6)


@given(configurations(min_rows=3))
def test_exact_configuration_has_zero_stress(X):
    D = squareform(pdist(X))
    if D.max() == 0:
        return
    assert stress_of_encoding(X, D) == pytest.approx(0.0, abs=1e-20)


@given(configurations(min_rows=3), st.floats(0.01, 100))
def test_optimal_stress_is_scale_invariant_and_never_above_raw(X, a):
    D = squareform(pdist(X[::-1] ** 2))
    if D.max() == 0 or pdist(X).max() == 0:
        return
    s = stress_of_encoding(X, D, scale="optimal")
    assert stress_of_encoding(a * X, D, scale="optimal") == pytest.approx(s, rel=1e-9, abs=1e-12)
    assert s <= stress_of_encoding(X, D) + 1e-12
    assert 0 <= s <= 1 + 1e-12


@given(configurations(min_rows=3), st.randoms(use_true_random=False))
def test_stress_invariant_under_consistent_permutation(X, rnd):
    D = squareform(pdist(np.abs(X) + 1.0)) + 0.0
    if D.max() == 0:
        return
    perm = list(range(len(X)))
    rnd.shuffle(perm)
    for scale in ("raw", "optimal"):
        permuted = stress_of_encoding(X[perm], D[np.ix_(perm, perm)], scale=scale)
        assert permuted == pytest.approx(stress_of_encoding(X, D, scale=scale))


def test_collapsed_encoding_has_optimal_stress_one():
    D = squareform(pdist(np.arange(4.0)[:, None]))
    assert stress_of_encoding(np.zeros((4, 3)), D, scale="optimal") == 1.0


@pytest.mark.parametrize(
    "P, D, match",
    [
        (np.zeros((3, 2)), np.zeros((3, 3)), "undefined"),
        (np.zeros((3, 2)), np.zeros((4, 4)), "same n positions"),
        (np.full((3, 2), np.nan), np.ones((3, 3)) - np.eye(3), "NaN"),
    ],
)
def test_stress_bad_input(P, D, match):
    with pytest.raises(ValueError, match=match):
        stress_of_encoding(P, D)


def test_unknown_scale():
    D = np.ones((3, 3)) - np.eye(3)
    with pytest.raises(ValueError, match="scale must be one of"):
        stress_of_distances(D, D, scale="best")


def test_pairwise_distances_exact_zero_diagonal():
    E = pairwise_distances(np.random.default_rng(0).normal(size=(5, 3)))
    assert np.all(np.diag(E) == 0) and np.array_equal(E, E.T)


def test_stress_subpackage_is_a_module_not_shadowed():
    """``posgeom.stress`` is the subpackage: the function is ``stress_of_encoding``, so nothing rebinds the name."""
    import types

    import posgeom
    import posgeom.stress as S

    assert isinstance(S, types.ModuleType) and isinstance(posgeom.stress, types.ModuleType)
    assert callable(S.stress_table) and S.stress_of_encoding is posgeom.stress_of_encoding
