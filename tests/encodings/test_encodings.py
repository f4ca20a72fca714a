import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posgeom as pg
from posgeom.encodings import (
    low_rank_factors,
    mds_encoding,
    sinusoidal_encoding,
)
from posgeom.encodings._relative import (
    _alibi_distances,
    _rope_distances,
    _t5_bucket,
    _t5_bucket_distances,
    sinusoidal_frequencies,
)
from posgeom.encodings.absolute import _orthonormal_frame
from posgeom.stress._smacof import smacof_encoding


def _hellinger(regime="smooth", n=16, V=60, seed=0):
    return pg.hellinger_distances(pg.synthetic_distributions(n, V, rng=seed, regime=regime))


# ---------------------------------------------------------------------------------------------------------------
# sinusoidal (unchanged contract)
# ---------------------------------------------------------------------------------------------------------------


def test_sinusoidal_rows_and_shift_invariance():
    P = sinusoidal_encoding(20, 16)
    assert np.allclose(np.linalg.norm(P, axis=1), np.sqrt(8))
    E = pg.pairwise_distances(P)
    assert np.allclose(E[3, 7], E[10, 14])
    theta = sinusoidal_frequencies(16)
    assert np.allclose(E[0, 5] ** 2, np.sum(2 * (1 - np.cos(5 * theta))))


# ---------------------------------------------------------------------------------------------------------------
# placement and the MDS encoding
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [None, 0, 7])
def test_orthonormal_frame_is_orthonormal(seed):
    W = _orthonormal_frame(12, 5, rng=seed)
    assert W.shape == (12, 5)
    assert np.allclose(W.T @ W, np.eye(5), atol=1e-12)


def test_orthonormal_frame_seeded_and_canonical():
    assert np.array_equal(_orthonormal_frame(6, 2), np.eye(6, 2))
    assert np.array_equal(_orthonormal_frame(6, 2, rng=3), _orthonormal_frame(6, 2, rng=3))
    assert not np.allclose(_orthonormal_frame(6, 2, rng=3), _orthonormal_frame(6, 2, rng=4))


def test_orthonormal_frame_validation():
    with pytest.raises(TypeError):
        _orthonormal_frame(3, 2, rng=1.5)


@pytest.mark.parametrize("seed", [None, 0, 1])
def test_mds_encoding_distances_do_not_depend_on_placement(seed):
    D = _hellinger()
    X = pg.classical_mds(D, rank=3).embedding
    P = mds_encoding(D, 32, rank=3, rng=0) if seed is None else mds_encoding(D, 32, rank=3, frame="random", rng=seed)
    assert P.shape == (16, 32)
    assert np.allclose(pg.pairwise_distances(P), pg.pairwise_distances(X), atol=1e-12)
    assert np.isclose(pg.stress_of_encoding(P, D), pg.stress_of_encoding(X, D), rtol=1e-10, atol=1e-15)


def test_full_rank_mds_encoding_reproduces_hellinger():
    D = _hellinger()
    P = mds_encoding(D, 64, rng=0)
    assert pg.stress_of_encoding(P, D) < 1e-20


def test_mds_encoding_rejects_too_narrow_width_and_no_signal():
    D = _hellinger()
    with pytest.raises(ValueError, match="pass rank"):
        mds_encoding(D, 2, rng=0)
    with pytest.raises(ValueError, match="no positive eigenvalue|no positional signal"):
        mds_encoding(np.zeros((4, 4)), 8, rng=0)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 5))
def test_random_frame_is_an_isometry(seed, r):
    X = np.random.default_rng(seed).standard_normal((7, r))
    P = X @ _orthonormal_frame(9, r, rng=seed).T  # how mds_encoding places X in the width
    assert np.allclose(pg.pairwise_distances(P), pg.pairwise_distances(X), atol=1e-10)


# ---------------------------------------------------------------------------------------------------------------
# SMACOF
# ---------------------------------------------------------------------------------------------------------------


def test_smacof_never_worse_than_classical_start_and_no_warnings():
    D = _hellinger(n=20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = smacof_encoding(D, 2, rng=0, n_init=3)
    assert res.embedding.shape == (20, 2)
    classical = pg.stress_of_encoding(pg.classical_mds(D, rank=2).embedding, D)
    assert res.stresses[0] <= classical + 1e-12  # majorisation never increases stress from its start
    assert res.stress == min(res.stresses)
    assert np.isclose(res.stress, pg.stress_of_encoding(res.embedding, D))
    assert np.allclose(res.embedding.mean(axis=0), 0, atol=1e-12)


def test_smacof_recovers_a_euclidean_configuration():
    X = np.random.default_rng(0).standard_normal((10, 2))
    D = pg.pairwise_distances(X)
    res = smacof_encoding(D, 2, rng=0, n_init=1)
    assert res.stress < 1e-8


def test_smacof_validation():
    D = _hellinger(n=6)
    with pytest.raises(ValueError, match="n - 1"):
        smacof_encoding(D, 6, rng=0)
    with pytest.raises(ValueError, match="nothing to embed"):
        smacof_encoding(np.zeros((4, 4)), 1, rng=0)
    with pytest.raises(TypeError):
        smacof_encoding(D, 2, rng=None)


# ---------------------------------------------------------------------------------------------------------------
# low-rank factors
# ---------------------------------------------------------------------------------------------------------------


def test_low_rank_factors_of_the_paper_setting():
    D = pg.hellinger_distances(pg.synthetic_distributions(32, 100, rng=0))
    P = mds_encoding(D, 128, rank=3, rng=0)
    f = low_rank_factors(P, 3)
    assert f.left.shape == (32, 3) and f.right.shape == (3, 128)
    assert f.n_parameters == 3 * (32 + 128) == 480
    assert f.n_full_parameters == 32 * 128
    assert np.isclose(f.saving, 1 - 480 / 4096)
    assert np.allclose((f.left @ f.right), P, atol=1e-12)  # a rank-3 encoding is stored exactly
    assert np.allclose(f.right @ f.right.T, np.eye(3), atol=1e-12)
    assert np.allclose(pg.pairwise_distances(f.left), pg.pairwise_distances(P), atol=1e-12)


def test_low_rank_factors_truncation_is_eckart_young():
    P = np.random.default_rng(1).standard_normal((10, 8))
    f = low_rank_factors(P, 2)
    assert np.linalg.norm(P - (f.left @ f.right)) / np.linalg.norm(P) > 0.1
    s = np.linalg.svd(P, compute_uv=False)
    assert np.isclose(np.linalg.norm(P - (f.left @ f.right)) ** 2, np.sum(s[2:] ** 2))


def test_low_rank_factors_validation():
    with pytest.raises(ValueError, match="min\\(n, d\\)"):
        low_rank_factors(np.ones((3, 5)), 4)


# ---------------------------------------------------------------------------------------------------------------
# relative schemes
# ---------------------------------------------------------------------------------------------------------------


def test_alibi_is_linear_and_rank_one():
    A = _alibi_distances(10, slope=0.5)
    assert A[2, 7] == 2.5 and A[7, 2] == 2.5
    res = pg.classical_mds(A)
    assert res.rank == 1
    assert pg.stress_of_encoding(res.embedding, A) < 1e-25


@pytest.mark.parametrize("base", [10000.0, 100.0])
def test_rope_equals_sinusoidal_distance(base):
    R = _rope_distances(24, 32, base=base)
    S = pg.pairwise_distances(sinusoidal_encoding(24, 32, base=base))
    assert np.allclose(R, S, atol=1e-12)
    theta = sinusoidal_frequencies(32, base=base)
    lag = np.abs(np.subtract.outer(np.arange(24), np.arange(24)))
    closed = np.sqrt(np.sum(2 * (1 - np.cos(lag[..., None] * theta)), axis=-1))
    assert np.allclose(R, closed, atol=1e-12)


def test_rope_validation():
    with pytest.raises(ValueError, match="even"):
        _rope_distances(4, 5)


def test_t5_bucket_matches_reference_values():
    # Reference values of the T5 bucket function (bidirectional, 32 buckets, max_distance 128).
    rel = np.array([0, -1, -7, -8, -12, -20, -127, -500, 1, 8, 500])
    expected = np.array([0, 1, 7, 8, 9, 10, 15, 15, 17, 24, 31])
    assert np.array_equal(_t5_bucket(rel), expected)


def test_t5_bucket_distances():
    T = _t5_bucket_distances(200)
    assert np.array_equal(T, T.T) and np.all(np.diag(T) == 0)
    lag = np.abs(np.subtract.outer(np.arange(200), np.arange(200)))
    assert np.array_equal(T[lag < 8], lag[lag < 8].astype(float))
    assert T.max() == 15
    assert np.all(np.diff(T[0]) >= 0)


def test_mds_encoding_frame_pads_with_zeros_or_draws_a_seeded_random_frame():
    D = _hellinger()
    padded = mds_encoding(D, 32, rank=3, rng=0)
    assert np.all(padded[:, 3:] == 0)
    assert np.array_equal(mds_encoding(D, 32, rank=3, rng=5), padded)  # rng matters only for a random frame
    random = mds_encoding(D, 32, rank=3, frame="random", rng=1)
    assert np.array_equal(random, mds_encoding(D, 32, rank=3, frame="random", rng=1))
    assert not np.allclose(random, mds_encoding(D, 32, rank=3, frame="random", rng=2))
    assert np.linalg.matrix_rank(random[:, 3:]) > 0
    with pytest.raises(ValueError, match="frame must be"):
        mds_encoding(D, 32, rank=3, frame="rotate", rng=0)
