"""The synthetic tasks of the chapters (posgeom.nn.tasks)."""

import numpy as np
import pytest

from posgeom.nn import centre_task, multiset_bound, order_task, pair_distributions, probe_data, transposition_task
from posgeom.nn.tasks import TaskData


@pytest.mark.parametrize("task", [order_task, centre_task])
def test_tasks_pair_every_sequence_with_an_opposite_label_and_same_multiset(task):
    data = task(40, 12, 12, rng=3)
    half = len(data) // 2
    assert data.X.shape == (80, 12) and set(np.unique(data.y)) == {0, 1}
    assert np.all(data.y[:half] != data.y[half:])
    assert np.array_equal(np.sort(data.X[:half], axis=1), np.sort(data.X[half:], axis=1))
    assert multiset_bound(data.X, data.y) == 0.5
    assert np.array_equal(task(40, 12, 12, rng=3).X, data.X)  # same seed, same data
    assert not np.array_equal(task(40, 12, 12, rng=4).X, data.X)


def test_task_labels_follow_their_rules():
    X, y = order_task(30, 8, 10, rng=0).X, order_task(30, 8, 10, rng=0).y
    assert np.array_equal(y, np.argmax(X == 0, axis=1) < np.argmax(X == 1, axis=1))
    data = centre_task(30, 12, 16, rng=1)
    a_rev = np.argmax(data.X[:, ::-1] == 0, axis=1)  # the label is invariant under reversal
    assert np.array_equal(data.y, ((a_rev >= 3) & (a_rev < 9)).astype(int))


def test_order_task_uniform_background():
    data = order_task(200, 8, 8, rng=0, regime="uniform")
    background = data.X[(data.X != 0) & (data.X != 1)]
    assert background.min() >= 2 and background.max() <= 7
    assert np.all((data.X == 0).sum(axis=1) == 1) and np.all((data.X == 1).sum(axis=1) == 1)


def test_task_argument_errors():
    with pytest.raises(ValueError, match="vocab_size"):
        order_task(5, 8, 3, rng=0)
    with pytest.raises(ValueError, match="multiple of 4"):
        centre_task(10, 10, 16, rng=0)
    with pytest.raises(TypeError):
        order_task(5, 8, 10, rng=1.5)


def test_taskdata_validation():
    with pytest.raises(ValueError, match="one label per sequence"):
        TaskData(np.zeros((3, 4), dtype=int), np.zeros(2, dtype=int))
    with pytest.raises(TypeError):
        TaskData(np.zeros((3, 4)), np.zeros(3, dtype=int))
    with pytest.raises(ValueError, match="padding only"):
        TaskData(np.zeros((2, 3), dtype=int), np.zeros(2, dtype=int), np.array([[False] * 3, [True] * 3]))


def test_probe_data_layout_and_draws():
    rng = np.random.default_rng(5)
    X_train, y_train = probe_data(40, 8, bos=8, rng=rng)
    X_test, _ = probe_data(40, 8, bos=8, rng=rng)  # one generator, drawn in turn
    assert X_train.shape == y_train.shape == (40, 8) and X_train.dtype == np.int64
    assert np.all(X_train[:, 0] == 8) and X_train[:, 1:].max() < 8 and X_train[:, 1:].min() >= 0
    assert np.array_equal(y_train, np.tile(np.arange(8), (40, 1)))
    assert not np.array_equal(X_train, X_test)
    ref = np.random.default_rng(5)
    expected = np.concatenate([np.full((40, 1), 8), ref.integers(0, 8, size=(40, 7))], axis=1)
    assert np.array_equal(X_train, expected)


def test_probe_data_rejects_bad_input():
    for args, kwargs in (((10, 1), {"bos": 4}), ((0, 5), {"bos": 4}), ((10, 5), {"bos": 0})):
        with pytest.raises(ValueError):
            probe_data(*args, **kwargs, rng=0)
    with pytest.raises(TypeError):
        probe_data(10, 5, bos=4, rng=None)


def test_pair_distributions_interpolate_between_equal_and_disjoint():
    a, b = pair_distributions(6, 0.0)
    assert np.allclose(a, b) and np.isclose(a.sum(), 1)
    a, b = pair_distributions(6, 1.0)
    assert np.all(a * b == 0) and np.isclose(b.sum(), 1)
    with pytest.raises(ValueError):
        pair_distributions(5, 0.5)
    with pytest.raises(ValueError):
        pair_distributions(6, 1.5)


def test_transposition_task_at_zero_shift_classes_are_identically_distributed():
    data = transposition_task(20000, shift=0.0, vocab_size=4, rng=0)
    for label in (0, 1):
        freq = np.bincount(data.X[data.y == label, 0], minlength=4) / np.sum(data.y == label)
        assert np.allclose(freq, 0.25, atol=0.02)  # about 4.6 binomial standard deviations at n = 10,000
    data = transposition_task(2000, shift=1.0, vocab_size=4, rng=0)
    assert np.all((data.X[:, 0] < 2) == (data.y == 1))
