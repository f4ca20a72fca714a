"""Tests of the plug-in noise: incidence, split-half noise floor, the plug-in bootstrap."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posgeom import (
    hellinger_distances,
    position_counts,
    position_distributions,
    synthetic_corpus,
)
from posgeom.corpus import SequenceIncidence
from posgeom.geometry import PlugIn
from posgeom.geometry._crossfit import corrected_distances, plugin_distances

ragged = st.lists(st.lists(st.integers(0, 6), min_size=0, max_size=7), min_size=1, max_size=12)


@settings(max_examples=40, deadline=None)
@given(seqs=ragged, n=st.integers(1, 8), pad=st.sampled_from([None, 0, 6]))
def test_incidence_counts_equal_position_counts(seqs, n, pad):
    if pad is None and not any(seqs[i][:n] for i in range(len(seqs))):
        with pytest.raises(ValueError, match="no token"):
            SequenceIncidence.from_sequences(seqs, n, 7)
        return
    inc = SequenceIncidence.from_sequences(seqs, n, 7, pad_id=pad)
    ref = position_counts(seqs, n, 7, pad_id=pad)
    assert (inc.counts() != ref).nnz == 0
    # integer weights = duplicating sequences; zero weights = dropping them
    w = np.arange(inc.n_sequences) % 3
    kept = [s for s in seqs if (s[:n] if pad is None else True)]
    dup = [s for s, k in zip(kept, w) for _ in range(k)]
    if dup and sum(len(s[:n]) for s in dup) + (pad is not None):
        assert np.allclose(inc.counts(w).toarray(), position_counts(dup, n, 7, pad_id=pad).toarray())


def test_incidence_from_matrix():
    X = synthetic_corpus(50, 6, 9, rng=1)
    inc = SequenceIncidence.from_sequences(X, 6, 9)
    assert inc.n_sequences == 50 and np.all(inc.lengths == 6)
    D = plugin_distances(inc)
    assert np.allclose(D, hellinger_distances(position_distributions(position_counts(X, 6, 9))))
    assert np.array_equal(inc.sequences_per_position(), np.full(6, 50.0))
    with pytest.raises(ValueError, match="outside the vocabulary"):
        SequenceIncidence.from_sequences([[0, 9]], 6, 9)
    with pytest.raises(ValueError, match="weights must have shape"):
        inc.counts(np.ones(3))


def test_split_half_floor_matches_the_delta_method():
    """Stationary corpus: every between-position distance is pure noise at sample size m, the split-half distance
    is noise at m/2, so E[d^2] doubles (delta method: (K-1)/8 * (1/m1 + 1/m2))."""
    m, n, V = 4000, 12, 20
    X = synthetic_corpus(m, n, V, rng=3, regime="stationary", topic_concentration=5.0)
    inc = SequenceIncidence.from_sequences(X, n, V)
    floor = corrected_distances(inc, rng=0, n_splits=8).floors  # root mean square over the splits
    D = plugin_distances(inc)
    between = D[np.triu_indices(n, 1)]
    ratio = np.mean(floor**2) / np.mean(between**2)
    assert 1.6 < ratio < 2.5, ratio
    assert np.mean(between**2) == pytest.approx((V - 1) / 8 * 2 / m, rel=0.3)


def test_plugin_bootstrap_is_shifted_upward_and_reproducible():
    X = synthetic_corpus(400, 8, 15, rng=5, regime="smooth")
    inc = SequenceIncidence.from_sequences(X, 8, 15)
    res = PlugIn().bootstrap(inc, rng=7, n_resamples=40)
    assert res.replicates.shape == (40, 8, 8) and np.all(res.lower <= res.upper + 1e-12)
    assert np.allclose(np.diag(res.lower), 0) and res.estimate.shape == (8, 8)
    off = ~np.eye(8, dtype=bool)
    assert np.mean(res.bias[off]) > 0  # resampling repeats texts: the plug-in's noise grows
    assert np.array_equal(res.replicates, PlugIn().bootstrap(inc, rng=7, n_resamples=40).replicates)
    far = PlugIn().bootstrap(inc, rng=1, n_resamples=30, statistic=lambda Q: Q[0, -1])
    assert far.replicates.shape == (30,) and far.lower <= far.estimate <= far.upper


def test_bad_inputs():
    inc = SequenceIncidence.from_sequences(synthetic_corpus(20, 4, 5, rng=0), 4, 5)
    with pytest.raises(ValueError, match="confidence"):
        PlugIn().bootstrap(inc, rng=0, confidence=1.5)
    with pytest.raises(ValueError, match="n_resamples must be >= 2"):
        PlugIn().bootstrap(inc, rng=0, n_resamples=1)
    # a position reached by a single sequence empties in some resample
    sparse = SequenceIncidence.from_sequences([[1, 2, 3, 4]] + [[1, 2]] * 30, 4, 5)
    with pytest.raises(ValueError, match="bootstrap resample .* position 2"):
        PlugIn().bootstrap(sparse, rng=0, n_resamples=50)
