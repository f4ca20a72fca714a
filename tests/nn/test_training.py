import numpy as np
import pytest
import torch

from posgeom.nn import (
    TransformerClassifier,
    seed_everything,
)
from posgeom.nn.training import _accuracy as accuracy
from posgeom.nn.training import _evaluate_loss as evaluate_loss
from posgeom.nn.training import _train_classifier


def data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(64, 5))
    y = (X[:, 0] > X[:, -1]).astype(int)
    return X, y


def run(seed):
    X, y = data()
    seed_everything(seed)
    model = TransformerClassifier(6, 5, 16, 2, 1, positional="learned")
    history = _train_classifier(model, X, y, epochs=3, lr=1e-2, seed=seed, batch_size=16)
    return model, history


def test_same_seed_gives_identical_parameters():
    (m1, h1), (m2, h2) = run(3), run(3)
    for (n1, p1), (n2, p2) in zip(m1.state_dict().items(), m2.state_dict().items()):
        assert n1 == n2
        assert torch.equal(p1, p2), n1
    assert h1.loss == h2.loss


def test_different_seed_differs():
    (m1, _), (m2, _) = run(3), run(4)
    assert not torch.equal(m1.head.weight, m2.head.weight)


def test_training_lowers_loss_and_accuracy_in_range():
    X, y = data()
    seed_everything(0)
    model = TransformerClassifier(6, 5, 16, 2, 1, positional="learned")
    before = evaluate_loss(model, X, y)
    history = _train_classifier(model, X, y, epochs=30, lr=1e-2, seed=0, batch_size=64)
    assert history.final_loss < before
    assert len(history.loss) == 30 and history.epochs == 30
    assert 0.0 <= accuracy(model, X, y) <= 1.0


def test_per_token_targets():
    X, _ = data()
    y = np.tile(np.arange(5), (64, 1))
    y[:, 0] = -100
    seed_everything(0)
    model = TransformerClassifier(6, 5, 16, 2, 1, positional="learned", n_classes=5)
    _train_classifier(model, X, y, epochs=40, lr=1e-2, seed=0, batch_size=64)
    assert accuracy(model, X, y) > 0.9


def test_bad_arguments():
    X, y = data()
    model = TransformerClassifier(6, 5, 16, 2, 1)
    with pytest.raises(TypeError, match="epochs"):
        _train_classifier(model, X, y, epochs=1.5, lr=0.1, seed=0)
    with pytest.raises(ValueError, match="shape"):
        _train_classifier(model, X, y[:-1], epochs=1, lr=0.1, seed=0)
    with pytest.raises(TypeError, match="integer"):
        _train_classifier(model, X.astype(float), y, epochs=1, lr=0.1, seed=0)
    with pytest.raises(ValueError, match="ignore"):
        accuracy(model, X, np.full(X.shape, -100))


def test_cosine_schedule_is_deterministic():
    X, y = data()
    runs = []
    for _ in range(2):
        seed_everything(0)
        model = TransformerClassifier(6, 5, 16, 2, 1)
        runs.append(_train_classifier(model, X, y, epochs=5, lr=1e-2, seed=0, batch_size=32, schedule="cosine"))
    assert runs[0].loss == runs[1].loss


def test_seed_everything_leaves_numpy_global_generator_alone():
    import numpy as np

    state = np.random.get_state()
    seed_everything(123)
    after = np.random.get_state()
    assert state[0] == after[0] and np.array_equal(state[1], after[1]) and state[2:] == after[2:]
