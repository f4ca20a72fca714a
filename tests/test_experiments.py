"""Tests for posgeom.experiments: tasks, tokenised datasets, scheme stress, training runs, rank correlation."""


import numpy as np
import pytest
from scipy.stats import spearmanr

from posgeom.corpus import position_counts, position_distributions
from posgeom.encodings import (
    alibi_slopes,
    induced_distances,
    low_rank_factors,
    mds_encoding,
    rope_distances,
)
from posgeom.geometry import hellinger_distances
from posgeom.inference import spearman
from posgeom.studies import (
    TaskData,
    TokenizedDataset,
    Vocabulary,
    corpus_distances,
    distance_task,
    multiset_bound,
    order_task,
    position_task,
    scheme_stress,
    tokenize_dataset,
    train_and_evaluate,
)

TINY = dict(d_model=8, n_heads=2, n_layers=1, epochs=1, lr=1e-2, batch_size=32)


# ---------------------------------------------------------------------------------------------------------- tasks


@pytest.mark.parametrize("task", [order_task, position_task, distance_task])
def test_tasks_pair_every_sequence_with_an_opposite_label_and_same_multiset(task):
    data = task(40, 10, 12, rng=3)
    half = len(data) // 2
    assert data.X.shape == (80, 10) and set(np.unique(data.y)) == {0, 1}
    assert np.all(data.y[:half] != data.y[half:])
    assert np.array_equal(np.sort(data.X[:half], axis=1), np.sort(data.X[half:], axis=1))
    assert multiset_bound(data.X, data.y) == 0.5
    assert np.array_equal(task(40, 10, 12, rng=3).X, data.X)  # same seed, same data
    assert not np.array_equal(task(40, 10, 12, rng=4).X, data.X)


def test_task_labels_follow_their_rules():
    X, y = order_task(30, 8, 10, rng=0).X, order_task(30, 8, 10, rng=0).y
    assert np.array_equal(y, np.argmax(X == 0, axis=1) < np.argmax(X == 1, axis=1))
    d = distance_task(30, 9, 10, rng=0, max_gap=2)
    gap = np.abs(np.argmax(d.X == 0, axis=1) - np.argmax(d.X == 1, axis=1))
    assert np.array_equal(d.y, gap <= 2) and np.all(gap >= 1)
    p = position_task(30, 8, 10, rng=0)
    assert np.all((p.X == 0).sum(axis=1) == 1) and np.array_equal(p.y, np.argmax(p.X == 0, axis=1) < 4)


def test_task_argument_errors():
    with pytest.raises(ValueError, match="vocab_size"):
        order_task(5, 8, 3, rng=0)
    with pytest.raises(ValueError, match="max_gap"):
        distance_task(5, 5, 10, rng=0, max_gap=2)
    with pytest.raises(ValueError, match="even"):
        position_task(5, 7, 10, rng=0)
    with pytest.raises(TypeError):
        order_task(5, 8, 10, rng=1.5)


def test_taskdata_validation():
    with pytest.raises(ValueError, match="one label per sequence"):
        TaskData(np.zeros((3, 4), dtype=int), np.zeros(2, dtype=int))
    with pytest.raises(TypeError):
        TaskData(np.zeros((3, 4)), np.zeros(3, dtype=int))
    with pytest.raises(ValueError, match="padding only"):
        TaskData(np.zeros((2, 3), dtype=int), np.zeros(2, dtype=int), np.array([[False] * 3, [True] * 3]))


# ------------------------------------------------------------------------------------------- text and vocabulary


def _dataset(seqs, n=5, V=20, pad=0):
    return TokenizedDataset([np.asarray(s, dtype=np.int64) for s in seqs], np.arange(len(seqs)) % 2, n, V, pad)


def test_vocabulary_is_a_bijection_on_training_and_maps_unseen_ids_to_unknown():
    train = _dataset([[2, 7, 9, 3], [2, 11, 3]])
    vocab = Vocabulary.fit(train)
    assert len(vocab) == 5 + 2 and vocab.kept.tolist() == [2, 3, 7, 9, 11]
    assert vocab.encode([2, 11, 5]).tolist() == [2, 6, Vocabulary.UNK]
    data = vocab.task_data(train)
    assert data.X.shape == (2, 5)
    assert data.padding_mask.tolist() == [[False] * 4 + [True], [False] * 3 + [True] * 2]
    assert np.all(data.X[data.padding_mask] == Vocabulary.PAD)
    # positional statistics of the compact ids are those of the original ids
    assert np.allclose(corpus_distances(data, 4), corpus_distances(train, 4))


def test_corpus_distances_match_the_core_functions():
    train = _dataset([[2, 7, 9, 3], [2, 11, 3], [2, 7, 3]])
    expected = hellinger_distances(position_distributions(position_counts(train.sequences, 3, 20)))
    assert np.allclose(corpus_distances(train, 3), expected)
    with pytest.raises(ValueError, match="right padding"):
        corpus_distances(TaskData(np.ones((1, 3), dtype=int), np.zeros(1, dtype=int),
                                  np.array([[True, False, False]])))
    with pytest.raises(TypeError):
        corpus_distances(np.zeros((2, 2)))


@pytest.fixture(scope="module")
def tokenizer():
    from posgeom.data import load_tokenizer

    return load_tokenizer()


def test_tokenize_dataset_uses_bert_input_convention(tokenizer):
    texts = ["a good film", "bad " * 20]
    data = tokenize_dataset(texts, np.array([1, 0]), tokenizer, 6)
    cls, sep = tokenizer.cls_token_id, tokenizer.sep_token_id
    assert data.sequences[0][0] == cls and data.sequences[0][-1] == sep and data.sequences[0].size == 5
    assert data.sequences[1].size == 6 and data.sequences[1][-1] == sep  # truncated, [SEP] kept at n - 1
    ids, mask = data.padded()
    assert ids[0, 5] == tokenizer.pad_token_id and mask[0].tolist() == [False] * 5 + [True]
    with pytest.raises(ValueError, match="labels"):
        tokenize_dataset(texts, np.array([1]), tokenizer, 6)


# ------------------------------------------------------------------------------------------------------- stress


def test_induced_distances_and_scheme_stress():
    D = corpus_distances(order_task(100, 8, 12, rng=0))
    assert scheme_stress("none", D, d_model=8, n_heads=2) == 1.0
    m = np.linalg.norm(alibi_slopes(2))
    assert np.allclose(induced_distances("alibi", 4, d_model=8, n_heads=2)[0], m * np.arange(4))
    # RoPE over all heads has the sinusoid's scale: sqrt(n_heads) times one head's distance.
    assert np.allclose(induced_distances("rope", 6, d_model=8, n_heads=2), np.sqrt(2) * rope_distances(6, 4))
    P = mds_encoding(D, 8)
    assert scheme_stress("fixed", D, d_model=8, n_heads=2, encoding=P) < 1e-10
    for scheme in ("sinusoidal", "rope", "alibi"):
        assert 0 < scheme_stress(scheme, D, d_model=8, n_heads=2) < 1
    with pytest.raises(ValueError, match="required"):
        induced_distances("learned", 8, d_model=8, n_heads=2)
    with pytest.raises(ValueError, match="rejected"):
        induced_distances("rope", 8, d_model=8, n_heads=2, encoding=P)
    with pytest.raises(ValueError, match="unknown scheme"):
        induced_distances("bogus", 8, d_model=8, n_heads=2)


# ----------------------------------------------------------------------------------------------------- training


@pytest.fixture(scope="module")
def task():
    return order_task(24, 6, 8, rng=0), order_task(16, 6, 8, rng=1)


def test_train_and_evaluate_is_reproducible_and_reports_every_seed(task):
    train, test = task
    a = train_and_evaluate("rope", train, test, seeds=(0, 1), **TINY)
    b = train_and_evaluate("rope", train, test, seeds=(0, 1), **TINY)
    assert a.test_accuracy.shape == (2,) and np.array_equal(a.test_accuracy, b.test_accuracy)
    assert a.encodings is None and a.mean == a.test_accuracy.mean()
    learned = train_and_evaluate("learned", train, test, seeds=(3,), **TINY)
    assert learned.encodings[0].shape == (6, 8) and learned.std == 0.0


def test_low_rank_initialisation_from_an_encoding(task):
    train, test = task
    init = np.random.default_rng(0).normal(size=(6, 8))
    run = train_and_evaluate("low_rank", train, test, seeds=(0,), rank=2, init_encoding=init,
                             **{**TINY, "lr": 1e-9})
    assert np.allclose(run.encodings[0], low_rank_factors(init, 2).product(), atol=1e-5)
    with pytest.raises(ValueError, match="only used by the 'low_rank'"):
        train_and_evaluate("learned", train, test, seeds=(0,), init_encoding=init, **TINY)


def test_train_and_evaluate_argument_errors(task):
    train, test = task
    with pytest.raises(TypeError, match="sequence of integers"):
        train_and_evaluate("none", train, test, seeds=0, **TINY)
    with pytest.raises(ValueError, match="distinct"):
        train_and_evaluate("none", train, test, seeds=(1, 1), **TINY)
    with pytest.raises(ValueError, match="unknown scheme"):
        train_and_evaluate("bogus", train, test, seeds=(0,), **TINY)
    with pytest.raises(TypeError, match="TaskData"):
        train_and_evaluate("none", train.X, test, seeds=(0,), **TINY)


# -------------------------------------------------------------------------------------------------- statistics


def test_spearman_matches_scipy_with_ties():
    rng = np.random.default_rng(0)
    x, y = rng.integers(0, 4, 12).astype(float), rng.normal(size=12)
    assert spearman(x, y) == pytest.approx(spearmanr(x, y).statistic)
    with pytest.raises(ValueError, match="constant"):
        spearman(np.ones(4), np.arange(4))


def test_scheme_stress_agrees_with_the_stress_table():
    from posgeom.stress import standard_candidates, stress_table

    D = corpus_distances(order_task(100, 8, 12, rng=0))
    candidates = standard_candidates(8, d=8, n_heads=2, model=None, mds_ranks=(), t5=False, constant=False)
    rows = {row.name.lower(): row.optimal for row in stress_table(D, candidates).rows}
    for scheme in ("sinusoidal", "rope", "alibi"):
        match = [v for k, v in rows.items() if k.startswith(scheme)]
        assert len(match) == 1, rows
        assert scheme_stress(scheme, D, d_model=8, n_heads=2) == pytest.approx(match[0], abs=1e-10)
