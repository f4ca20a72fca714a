"""The one training entry point: ``fit`` and ``fit_ensemble`` give each seed the same run, and bad options fail early.

Tolerances. The ensemble runs the same algorithm per seed as ``fit`` (same initialisation, mini-batch order,
optimiser and stopping rule) with batched kernels that sum in another order, so the two differ by rounding, which
training carries along (Adam divides by ``sqrt(v) + 1e-8``, so a gradient that is zero up to rounding still moves its
parameter by up to about ``lr``). Hence:

* in float64 (rounding ~1e-16), a whole training run -- cosine schedule, weight decay, plateau stopping -- agrees to
  1e-6 relative in every parameter and 1e-9 in every loss (measured: 2e-8 and 7e-10 at worst); a wrong seed, order
  or initialisation would differ at order 1;
* in float32 (rounding ~6e-8) the first steps agree to 1e-5 relative (parameters, scale of their tensor) and the
  epoch losses to 1e-5 relative, except the key bias of attention, whose gradient is zero up to rounding; over long
  runs float32 trajectories drift apart at the level that ``fit`` itself drifts when only its thread count changes
  (Chapter 4's run: ``||p_0 - p_1||`` 3.709 with one thread, 3.711 with two), which is why the long-run test is in
  float64.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from posgeom.nn import FitResult, ModelSpec, TrainConfig, fit, fit_ensemble


def _data(n=48, length=6, vocab=8, seed=0, per_token=False, padded=False):
    rng = np.random.default_rng(seed)
    X = rng.integers(2, vocab, size=(n, length))
    a, b = rng.integers(0, length, size=(2, n))
    b = np.where(a == b, (b + 1) % length, b)
    X[np.arange(n), a], X[np.arange(n), b] = 0, 1
    y = (a < b).astype(np.int64)
    if per_token:
        y = np.where(rng.random((n, length)) < 0.3, X % 4, -100)
        y[:, 0] = X[:, 0] % 4
    mask = None
    if padded:
        lengths = rng.integers(2, length + 1, size=n)
        mask = np.arange(length)[None, :] >= lengths[:, None]
    return (X, y) if mask is None else (X, y, mask)


def _without_key_bias(name, p):
    """The query and value parts of a qkv bias: the key bias has gradient zero up to rounding (softmax ignores a
    constant added to a row of logits), so Adam moves it by rounding noise / (|noise| + eps) in every run."""
    if not name.endswith("attn.qkv.bias"):
        return p
    d = p.shape[0] // 3
    return torch.cat([p[:d], p[2 * d :]])


def _compare(ensemble, alone, *, param_rtol, loss_rtol, key_bias=True):
    for e, a in zip(ensemble, alone):
        assert isinstance(e, FitResult) and e.seed == a.seed
        assert e.history.epochs == a.history.epochs and e.history.stopped_early == a.history.stopped_early
        np.testing.assert_allclose(e.history.loss, a.history.loss, rtol=loss_rtol, atol=0)
        np.testing.assert_allclose(e.history.final_loss, a.history.final_loss, rtol=loss_rtol, atol=0)
        np.testing.assert_allclose(e.history.accuracy, a.history.accuracy, atol=1e-12)
        ours, theirs = dict(e.model.named_parameters()), dict(a.model.named_parameters())
        assert ours.keys() == theirs.keys()
        for name, p in theirs.items():
            mine = ours[name]
            if not key_bias:
                p, mine = _without_key_bias(name, p), _without_key_bias(name, mine)
            scale = float(p.detach().abs().max()) or 1.0
            diff = float((mine - p).detach().abs().max())
            assert diff <= param_rtol * scale, f"seed {a.seed}, {name}: {diff:.3g} > {param_rtol} * {scale:.3g}"


@pytest.fixture
def float64():
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(previous)


CASES = {
    "learned, tied start, cosine, weight decay, full batch": (
        dict(positional="learned", init_encoding=np.zeros((6, 8))),
        dict(epochs=30, lr=0.05, batch_size=None, weight_decay=0.01, schedule="cosine"),
        {},
    ),
    "low rank from an encoding, mini-batches": (
        dict(positional="low_rank", rank=2, init_encoding=np.arange(48.0).reshape(6, 8) / 48),
        dict(epochs=8, lr=1e-2, batch_size=20), {},
    ),
    "rope, plateau rule": (dict(positional="rope"), dict(epochs=25, lr=2e-2, batch_size=16, patience=2), {}),
    "alibi, causal, padding": (dict(positional="alibi", causal=True), dict(epochs=5, lr=1e-2, batch_size=16),
                               dict(padded=True)),
    "sinusoidal, per-token labels": (dict(positional="sinusoidal", n_classes=4), dict(epochs=5, lr=1e-2),
                                     dict(per_token=True)),
    "none, two layers": (dict(positional="none", n_layers=2), dict(epochs=4, lr=1e-2, batch_size=16), {}),
    "learned, causal": (dict(positional="learned", causal=True), dict(epochs=4, lr=1e-2, batch_size=16), {}),
    "fixed, padding": (dict(positional="fixed", encoding=np.eye(6, 8)), dict(epochs=4, lr=1e-2, batch_size=16),
                       dict(padded=True)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_ensemble_matches_fit_per_seed_float64(case, float64):
    spec_kw, config_kw, data_kw = CASES[case]
    data = _data(**data_kw)
    spec = ModelSpec(vocab_size=8, n_positions=6, d_model=8, **spec_kw)
    config = TrainConfig(**config_kw)
    seeds = (3, 0, 11)
    ensemble = fit_ensemble(spec, data, seeds=seeds, config=config)
    alone = [fit(spec, data, seed=s, config=config) for s in seeds]
    assert next(alone[0].model.parameters()).dtype == torch.float64
    _compare(ensemble, alone, param_rtol=1e-6, loss_rtol=1e-9)
    # the members really differ: each seed its own initialisation and order
    assert ensemble[0].history.loss != ensemble[1].history.loss


def test_ensemble_matches_fit_per_seed_float32_first_steps():
    data = _data(n=64)
    spec = ModelSpec(vocab_size=8, n_positions=6, d_model=16, positional="learned")
    config = TrainConfig(epochs=2, lr=3e-3, batch_size=32)
    seeds = range(4)
    _compare(fit_ensemble(spec, data, seeds=seeds, config=config),
             [fit(spec, data, seed=s, config=config) for s in seeds], param_rtol=1e-5, loss_rtol=1e-5,
             key_bias=False)


def test_fixed_encodings_differ_per_member(float64):
    data = _data()
    rng = np.random.default_rng(0)
    specs = [ModelSpec(vocab_size=8, n_positions=6, d_model=8, positional="fixed", encoding=rng.normal(size=(6, 8)))
             for _ in range(2)]
    config = TrainConfig(epochs=3, lr=1e-2, batch_size=16)
    ensemble = fit_ensemble(specs, data, seeds=(0, 1), config=config)
    alone = [fit(sp, data, seed=s, config=config) for sp, s in zip(specs, (0, 1))]
    _compare(ensemble, alone, param_rtol=1e-6, loss_rtol=1e-9)
    np.testing.assert_array_equal(ensemble[1].encoding, specs[1].encoding.astype(np.float32))  # a float32 buffer


def test_fit_is_train_classifier_after_seeding():
    from posgeom.nn import TransformerClassifier, seed_everything, train_classifier

    X, y = _data()
    seed_everything(5)
    model = TransformerClassifier(8, 6, 8, 2, 1, positional="learned")
    history = train_classifier(model, X, y, epochs=3, lr=1e-2, seed=5, batch_size=16)
    res = fit(ModelSpec(vocab_size=8, n_positions=6, d_model=8), (X, y), seed=5,
              config=TrainConfig(epochs=3, lr=1e-2, batch_size=16))
    assert res.history.loss == history.loss and res.history.final_loss == history.final_loss
    for p, q in zip(res.model.parameters(), model.parameters()):
        assert torch.equal(p, q)


def test_fit_is_deterministic_and_result_is_frozen():
    data = _data()
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
    (dict(epochs=1, lr=0.1, patience=0), ValueError, "patience"),
    (dict(epochs=1, lr=0.1, tol=-0.1), ValueError, "tol"),
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
        fit(ModelSpec(vocab_size=8, n_positions=6), _data(), 0, TrainConfig(epochs=1, lr=0.1))


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
    spec, config, data = ModelSpec(vocab_size=8, n_positions=6, d_model=8), TrainConfig(epochs=1, lr=0.1), _data()
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


def test_fit_ensemble_rejects_bad_arguments():
    spec, config, data = ModelSpec(vocab_size=8, n_positions=6, d_model=8), TrainConfig(epochs=1, lr=0.1), _data()
    with pytest.raises(TypeError, match="sequence of integers"):
        fit_ensemble(spec, data, seeds=3, config=config)
    with pytest.raises(ValueError, match="empty"):
        fit_ensemble(spec, data, seeds=(), config=config)
    with pytest.raises(ValueError, match="distinct"):
        fit_ensemble(spec, data, seeds=(1, 1), config=config)
    with pytest.raises(ValueError, match="one per seed"):
        fit_ensemble([spec, spec], data, seeds=(0, 1, 2), config=config)
    with pytest.raises(ValueError, match="differ at most"):
        fit_ensemble([spec, ModelSpec(vocab_size=8, n_positions=6, d_model=16)], data, seeds=(0, 1), config=config)
    with pytest.raises(FloatingPointError):
        fit_ensemble(spec, data, seeds=(0, 1), config=TrainConfig(epochs=2, lr=1e30))
