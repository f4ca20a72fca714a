"""LagStatistics and pad_texts: exact values on known matrices, linearity, and the flat-control null."""

import numpy as np
import pytest

from posgeom.corpus import SequenceIncidence
from posgeom.geometry import LagStatistics, Resolved, flat_corpus, pad_texts


def toeplitz(profile):
    n = len(profile)
    return np.asarray(profile, dtype=float)[np.abs(np.subtract.outer(np.arange(n), np.arange(n)))]


def test_toeplitz_matrix_has_zero_trend_and_full_share():
    Q = toeplitz([0.0, 0.1, 0.3, 0.2, 0.5, 0.4])
    stat = LagStatistics(6, first=1, last=4, with_share=True)
    v = stat(Q)
    assert np.allclose(stat.profile(v), [0.1, 0.3, 0.2])
    assert abs(stat.trend(v)) < 1e-12
    assert stat.share(v) == pytest.approx(1.0)


def test_slope_and_trend_recover_a_linear_plane():
    n = 8
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    Q = 0.02 * np.abs(i - j) - 0.005 * (i + j) / 2 * (i != j)
    stat = LagStatistics(n)
    v = stat(Q)
    assert stat.trend(v) == pytest.approx(-0.005)
    assert stat.slope(stat(0.02 * np.abs(i - j))) == pytest.approx(0.02)


def test_statistics_are_linear():
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(2, 7, 7))
    A, B = A + A.T, B + B.T
    stat = LagStatistics(7, first=1, last=5)
    lin = stat(2 * A - 3 * B)
    assert np.allclose(lin, 2 * stat(A) - 3 * stat(B))


def test_bad_blocks_and_shapes_raise():
    with pytest.raises(ValueError):
        LagStatistics(5, first=3, last=4)
    with pytest.raises(ValueError):
        LagStatistics(5)(np.zeros((4, 4)))
    with pytest.raises(ValueError):
        LagStatistics(5).share(np.zeros(6))


def test_pad_texts_counts_pads_at_every_position():
    inc = SequenceIncidence.from_sequences([[3, 1, 2], [2, 2], [1]], 4, 5)
    padded = pad_texts(inc, 0)
    ref = SequenceIncidence.from_sequences([[3, 1, 2], [2, 2], [1]], 4, 5, pad_id=0)
    assert np.array_equal(padded.counts().toarray(), ref.counts().toarray())
    assert np.array_equal(padded.lengths, [4, 4, 4])
    with pytest.raises(ValueError):
        pad_texts(inc, 5)


def test_flat_control_gives_null_slope_and_trend():
    rng = np.random.default_rng(1)
    lengths = rng.integers(3, 9, size=4000)
    seqs = [rng.zipf(1.6, size=L) % 30 for L in lengths]
    inc = SequenceIncidence.from_sequences(seqs, 8, 30)
    flat = flat_corpus(inc, rng=0)
    est = Resolved().fixed(flat, fraction=0.5)
    stat = LagStatistics(8)
    b = est.bootstrap(flat, n_resamples=60, rng=0, statistic=stat)
    for k in (stat.slope_index, stat.trend_index):
        assert b.lower[k] <= 0 <= b.upper[k]
