import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from posgeom import position_counts, position_distributions


def test_counts_worked_by_hand():
    counts = position_counts([[0, 1, 2], [0, 2], [1]], n_positions=3, vocab_size=4)
    assert sp.issparse(counts)
    np.testing.assert_array_equal(counts.toarray(), [[2, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 0]])


def test_padding_is_counted_only_when_asked():
    seqs = [[1], [2, 3]]
    no_pad = position_counts(seqs, 3, 5).toarray()
    pad = position_counts(seqs, 3, 5, pad_id=0).toarray()
    np.testing.assert_array_equal(no_pad.sum(axis=1), [2, 1, 0])
    np.testing.assert_array_equal(pad.sum(axis=1), [2, 2, 2])
    assert pad[1, 0] == 1 and pad[2, 0] == 2


def test_truncation_at_n_positions():
    counts = position_counts([[1, 2, 3, 4]], 2, 5).toarray()
    np.testing.assert_array_equal(counts, [[0, 1, 0, 0, 0], [0, 0, 1, 0, 0]])


def test_two_dimensional_array_matches_list_input():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 7, size=(50, 6))
    a = position_counts(X, 4, 7)
    b = position_counts([list(r) for r in X], 4, 7)
    assert (a != b).nnz == 0


def test_sorting_path_equals_bincount_path(monkeypatch):
    import posgeom.corpus.counts as stats

    X = np.random.default_rng(1).integers(0, 11, size=(40, 9))
    dense = position_counts(X, 9, 11)
    monkeypatch.setattr(stats, "_DENSE_BINCOUNT_CELLS", 0)
    assert (position_counts(X, 9, 11) != dense).nnz == 0


@given(st.lists(st.lists(st.integers(0, 5), max_size=7), min_size=2, max_size=12), st.integers(1, 11))
def test_counts_are_additive_over_any_split(seqs, cut):
    cut = cut % len(seqs)
    whole = position_counts(seqs, 7, 6)
    parts = position_counts(seqs[:cut] or [[]], 7, 6) + position_counts(seqs[cut:], 7, 6)
    assert (whole != parts).nnz == 0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(sequences=[], n_positions=2, vocab_size=3), "empty"),
        (dict(sequences=[[0]], n_positions=0, vocab_size=3), "n_positions"),
        (dict(sequences=[[0, 3]], n_positions=2, vocab_size=3), "outside the vocabulary"),
        (dict(sequences=[[-1]], n_positions=2, vocab_size=3), "outside the vocabulary"),
        (dict(sequences=[[0]], n_positions=2, vocab_size=3, pad_id=3), "pad_id"),
    ],
)
def test_counts_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        position_counts(**kwargs)


def test_counts_rejects_non_integer_ids():
    with pytest.raises(TypeError, match="integers"):
        position_counts([[0.5, 1.0]], 2, 3)


def test_distributions_are_row_stochastic_and_keep_sparsity():
    counts = position_counts([[0, 1], [0, 2]], 2, 3)
    P = position_distributions(counts)
    assert sp.issparse(P)
    np.testing.assert_allclose(P.toarray(), [[1, 0, 0], [0, 0.5, 0.5]])


def test_position_with_no_data_is_an_error_naming_it():
    counts = position_counts([[0]], 3, 2)
    with pytest.raises(ValueError, match="position 1"):
        position_distributions(counts)


@pytest.mark.parametrize("bad", [np.array([[1.0, np.nan]]), np.array([[1.0, -1.0]]), np.array([1.0, 2.0])])
def test_distributions_bad_counts(bad):
    with pytest.raises(ValueError):
        position_distributions(bad)


@given(st.lists(st.lists(st.integers(0, 5), min_size=1, max_size=7), min_size=1, max_size=12), st.data())
def test_merged_shards_equal_one_pass_for_any_partition(seqs, data):
    labels = data.draw(st.lists(st.integers(0, 3), min_size=len(seqs), max_size=len(seqs)))
    shards = [[s for s, lab in zip(seqs, labels) if lab == k] for k in set(labels)]
    merged = sum(position_counts(shard, 7, 6) for shard in shards)
    assert (merged != position_counts(seqs, 7, 6)).nnz == 0
