import numpy as np
import pytest
import torch

from posgeom.studies import order_task, probe_data, train_model


def test_train_model_is_deterministic_and_respects_the_mask():
    data = order_task(30, 6, 6, rng=0, regime="uniform")
    a = train_model(data.X, data.y, positional="none", seed=1, epochs=2)
    b = train_model(data.X, data.y, positional="none", seed=1, epochs=2)
    X = torch.as_tensor(data.X)
    assert torch.equal(a(X), b(X))
    # no positions, bidirectional: a sequence and its markers-swapped partner get the same logits (Theorem 1)
    assert torch.allclose(a(X[:30]), a(X[30:]), atol=1e-5)
    causal = train_model(data.X, data.y, positional="none", seed=1, epochs=2, causal=True)
    assert not torch.allclose(causal(X[:30]), causal(X[30:]), atol=1e-5)


def test_train_model_rejects_bad_input():
    with pytest.raises(ValueError):
        train_model(np.zeros(5, dtype=int), np.zeros(5, dtype=int), positional="none", seed=0)


def test_order_task_uniform_background():
    data = order_task(200, 8, 8, rng=0, regime="uniform")
    background = data.X[(data.X != 0) & (data.X != 1)]
    assert background.min() >= 2 and background.max() <= 7
    assert np.all((data.X == 0).sum(axis=1) == 1) and np.all((data.X == 1).sum(axis=1) == 1)


def test_probe_data_layout_and_draws():
    rng = np.random.default_rng(5)
    X_train, y_train = probe_data(40, 8, bos=8, rng=rng)
    X_test, _ = probe_data(40, 8, bos=8, rng=rng)  # one generator, drawn in turn
    assert X_train.shape == y_train.shape == (40, 8) and X_train.dtype == np.int64
    assert np.all(X_train[:, 0] == 8) and X_train[:, 1:].max() < 8 and X_train[:, 1:].min() >= 0
    assert np.array_equal(y_train, np.tile(np.arange(8), (40, 1)))
    assert not np.array_equal(X_train, X_test)
    # the same draws as the notebook code it replaces
    ref = np.random.default_rng(5)
    expected = np.concatenate([np.full((40, 1), 8), ref.integers(0, 8, size=(40, 7))], axis=1)
    assert np.array_equal(X_train, expected)
    assert np.array_equal(probe_data(40, 8, bos=8, rng=3)[0], probe_data(40, 8, bos=8, rng=3)[0])


def test_probe_data_rejects_bad_input():
    with pytest.raises(ValueError):
        probe_data(10, 1, bos=4, rng=0)
    with pytest.raises(ValueError):
        probe_data(0, 5, bos=4, rng=0)
    with pytest.raises(ValueError):
        probe_data(10, 5, bos=0, rng=0)
    with pytest.raises(TypeError):
        probe_data(10, 5, bos=4, rng=None)
