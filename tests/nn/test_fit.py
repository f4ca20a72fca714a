"""The one training entry point ``fit``: the same arguments give the same run, and bad options fail early. (Its
agreement with ``fit_ensemble`` is tested in ``test_ensemble.py``.)"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from pair_data import pair_data

from posgeom.nn import ModelSpec, TrainConfig, fit


def test_fit_is_train_classifier_after_seeding():
    from posgeom.nn import TransformerClassifier, seed_everything
    from posgeom.nn.training import _train_classifier

    X, y = pair_data()
    seed_everything(5)
    model = TransformerClassifier(8, 6, 8, 2, 1, positional="learned")
    history = _train_classifier(model, X, y, epochs=3, lr=1e-2, seed=5, batch_size=16)
    res = fit(ModelSpec(vocab_size=8, n_positions=6, d_model=8), (X, y), seed=5,
              config=TrainConfig(epochs=3, lr=1e-2, batch_size=16))
    assert res.history.loss == history.loss and res.history.final_loss == history.final_loss
    for p, q in zip(res.model.parameters(), model.parameters()):
        assert torch.equal(p, q)


def test_fit_is_deterministic_and_result_is_frozen():
    data = pair_data()
    spec, config = ModelSpec(vocab_size=8, n_positions=6, d_model=8), TrainConfig(epochs=2, lr=1e-2)
    a, b = fit(spec, data, seed=1, config=config), fit(spec, data, seed=1, config=config)
    np.testing.assert_array_equal(a.encoding, b.encoding)
    assert a.history == b.history and not a.model.training
    with pytest.raises(AttributeError):
        a.train_accuracy = 1.0
    with pytest.raises(AttributeError):
        config.lr = 1.0


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(epochs=0, lr=0.1), ValueError, "epochs"),
    (dict(epochs=1.5, lr=0.1), TypeError, "epochs"),
    (dict(epochs=1, lr=0.0), ValueError, "lr"),
    (dict(epochs=1, lr=float("nan")), TypeError, "lr"),
    (dict(epochs=1, lr="0.1"), TypeError, "lr"),
    (dict(epochs=1, lr=0.1, weight_decay=-1e-3), ValueError, "weight_decay"),
    (dict(epochs=1, lr=0.1, batch_size=0), ValueError, "batch_size"),
    (dict(epochs=1, lr=0.1, schedule="linear"), ValueError, "schedule"),
    (dict(epochs=1, lr=0.1, threads=0), ValueError, "threads"),
])
def test_train_config_rejects_bad_options(kwargs, error, match):
    with pytest.raises(error, match=match):
        TrainConfig(**kwargs)


def test_options_are_keyword_only():
    with pytest.raises(TypeError):
        TrainConfig(3, 0.1)
    with pytest.raises(TypeError):
        ModelSpec(8, 6)
    with pytest.raises(TypeError):
        fit(ModelSpec(vocab_size=8, n_positions=6), pair_data(), 0, TrainConfig(epochs=1, lr=0.1))


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(positional="fourier"), ValueError, "unknown positional scheme"),
    (dict(d_model=10, n_heads=3), ValueError, "divisible"),
    (dict(positional="low_rank"), ValueError, "rank"),
    (dict(rank=2), ValueError, "rank"),
    (dict(positional="fixed"), ValueError, "encoding"),
    (dict(positional="fixed", encoding=np.zeros((5, 8))), ValueError, "shape"),
    (dict(positional="rope", init_encoding=np.zeros((6, 8))), ValueError, "init_encoding"),
    (dict(causal=1), TypeError, "causal"),
    (dict(n_layers=0), ValueError, "n_layers"),
])
def test_model_spec_rejects_bad_architectures(kwargs, error, match):
    with pytest.raises(error, match=match):
        ModelSpec(**{"vocab_size": 8, "n_positions": 6, "d_model": 8, **kwargs})


def test_fit_rejects_bad_arguments():
    spec, config, data = ModelSpec(vocab_size=8, n_positions=6, d_model=8), TrainConfig(epochs=1, lr=0.1), pair_data()
    with pytest.raises(TypeError, match="fit_ensemble"):
        fit(spec, data, seed=[0, 1], config=config)
    with pytest.raises(ValueError, match="seed"):
        fit(spec, data, seed=-1, config=config)
    with pytest.raises(TypeError, match="ModelSpec"):
        fit({"vocab_size": 8}, data, seed=0, config=config)
    with pytest.raises(TypeError, match="TrainConfig"):
        fit(spec, data, seed=0, config={"epochs": 1})
    with pytest.raises(TypeError, match="attributes X, y"):
        fit(spec, np.zeros((4, 6), dtype=int), seed=0, config=config)
    X, y = data
    with pytest.raises(ValueError, match="n_classes"):
        fit(spec, (X, y + 2), seed=0, config=config)
    with pytest.raises(ValueError, match="n_positions"):
        fit(ModelSpec(vocab_size=8, n_positions=4, d_model=8), data, seed=0, config=config)
    with pytest.raises(TypeError, match="integer"):
        fit(spec, (X.astype(float), y), seed=0, config=config)
