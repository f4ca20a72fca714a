import numpy as np
import pytest
import torch

from posgeom.studies import order_task, train_model


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
