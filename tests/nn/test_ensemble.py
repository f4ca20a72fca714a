"""``fit_ensemble`` gives each member the run ``fit`` gives its seed (and its own dataset), and bad input fails early.

Tolerances. The ensemble runs the same algorithm per seed as ``fit`` (same initialisation, mini-batch order,
optimiser) with batched kernels that sum in another order, so the two differ by rounding, which
training carries along (Adam divides by ``sqrt(v) + 1e-8``, so a gradient that is zero up to rounding still moves its
parameter by up to about ``lr``). Hence:

* in float64 (rounding ~1e-16), a whole training run -- cosine schedule, weight decay -- agrees to
  1e-6 relative in every parameter and 1e-9 in every loss (measured: 2e-8 and 7e-10 at worst); a wrong seed, order
  or initialisation would differ at order 1;
* in float32 (rounding ~6e-8) the first steps agree to 1e-5 relative (parameters, scale of their tensor) and the
  epoch losses to 1e-5 relative, except the key bias of attention, whose gradient is zero up to rounding; over long
  runs float32 trajectories drift apart at the level that ``fit`` itself drifts when only its thread count changes
  (Chapter 4's run: ``||p_0 - p_1||`` 3.709 with one thread, 3.711 with two), which is why the long-run test is in
  float64;
* a short float64 run (a few epochs) carries less rounding: 1e-8 relative in every parameter and 1e-10 in every loss,
  still eight orders of magnitude below the order-1 difference of a wrong dataset, seed or order.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from pair_data import pair_data

from posgeom.nn import FitResult, ModelSpec, TrainConfig, fit, fit_ensemble


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
    "rope": (dict(positional="rope"), dict(epochs=10, lr=2e-2, batch_size=16), {}),
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
    data = pair_data(**data_kw)
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
    data = pair_data(n=64)
    spec = ModelSpec(vocab_size=8, n_positions=6, d_model=16, positional="learned")
    config = TrainConfig(epochs=2, lr=3e-3, batch_size=32)
    seeds = range(4)
    _compare(fit_ensemble(spec, data, seeds=seeds, config=config),
             [fit(spec, data, seed=s, config=config) for s in seeds], param_rtol=1e-5, loss_rtol=1e-5,
             key_bias=False)


def test_fixed_encodings_differ_per_member(float64):
    data = pair_data()
    rng = np.random.default_rng(0)
    specs = [ModelSpec(vocab_size=8, n_positions=6, d_model=8, positional="fixed", encoding=rng.normal(size=(6, 8)))
             for _ in range(2)]
    config = TrainConfig(epochs=3, lr=1e-2, batch_size=16)
    ensemble = fit_ensemble(specs, data, seeds=(0, 1), config=config)
    alone = [fit(sp, data, seed=s, config=config) for sp, s in zip(specs, (0, 1))]
    _compare(ensemble, alone, param_rtol=1e-6, loss_rtol=1e-9)
    np.testing.assert_array_equal(ensemble[1].encoding, specs[1].encoding.astype(np.float32))  # a float32 buffer


@pytest.mark.parametrize("data_kw", [{}, dict(padded=True), dict(per_token=True)], ids=["pooled", "padded", "tokens"])
def test_member_k_trains_on_dataset_k(data_kw, float64):
    """Independent runs: member k is ``fit`` on its own dataset k (its own seed, initialisation and order)."""
    n_classes = 4 if data_kw.get("per_token") else 2
    spec = ModelSpec(vocab_size=8, n_positions=6, d_model=8, n_classes=n_classes)
    config = TrainConfig(epochs=4, lr=1e-2, batch_size=16)
    seeds = (3, 0, 11)
    datasets = [pair_data(seed=10 + k, **data_kw) for k in range(len(seeds))]
    ensemble = fit_ensemble(spec, datasets, seeds=seeds, config=config)
    alone = [fit(spec, d, seed=s, config=config) for d, s in zip(datasets, seeds)]
    _compare(ensemble, alone, param_rtol=1e-8, loss_rtol=1e-10)
    # the dataset matters at order 1: seed 0 on dataset 0 is not the run of seed 0 on dataset 1
    other = fit(spec, datasets[0], seed=seeds[1], config=config)
    assert abs(other.history.final_loss - ensemble[1].history.final_loss) > 1e3 * 1e-10 * other.history.final_loss


def test_one_dataset_per_member_is_the_shared_dataset_when_they_are_equal():
    """The per-member path and the shared path run the same arithmetic: equal datasets give bit-identical members."""
    data = pair_data(padded=True)
    spec = ModelSpec(vocab_size=8, n_positions=6, d_model=8, positional="rope")
    config = TrainConfig(epochs=6, lr=2e-2, batch_size=16)
    shared = fit_ensemble(spec, data, seeds=(0, 1), config=config)
    each = fit_ensemble(spec, [data, data], seeds=(0, 1), config=config)
    for a, b in zip(shared, each):
        assert a.history == b.history and a.train_accuracy == b.train_accuracy
        for (name, p), (_, q) in zip(a.model.named_parameters(), b.model.named_parameters()):
            assert torch.equal(p, q), name


def test_datasets_may_be_task_data():
    from posgeom.nn import order_task

    tasks = [order_task(40, 6, 8, rng=k) for k in range(2)]
    spec = ModelSpec(vocab_size=tasks[0].vocab_size, n_positions=6, d_model=8)
    config = TrainConfig(epochs=2, lr=1e-2, batch_size=20)
    runs = fit_ensemble(spec, tasks, seeds=(0, 1), config=config)
    alone = fit(spec, tasks[1], seed=1, config=config)
    np.testing.assert_allclose(runs[1].history.loss, alone.history.loss, rtol=1e-5)  # float32 first steps


def test_without_layer_norm_the_batched_pass_skips_it(float64):
    """No LayerNorm (``layer_norm=False``: no ``ln1``, ``ln2``, ``ln_final`` parameters): the batched forward treats
    the absent LayerNorm as the identity and the members still equal ``fit``."""
    data = pair_data()
    spec = ModelSpec(vocab_size=8, n_positions=6, d_model=8, n_layers=2, layer_norm=False)
    config = TrainConfig(epochs=4, lr=1e-2, batch_size=16)
    seeds = (2, 5)
    ensemble = fit_ensemble(spec, data, seeds=seeds, config=config)
    assert not any(".ln" in name or name.startswith("ln_") for name, _ in ensemble[0].model.named_parameters())
    _compare(ensemble, [fit(spec, data, seed=s, config=config) for s in seeds], param_rtol=1e-8, loss_rtol=1e-10)


def test_batched_forward_equals_each_member_without_layer_norm_parameters(float64):
    """The identity path of ``_batched`` on its own: stacked parameters without the LayerNorm entries give, member by
    member, the forward pass of the model whose LayerNorms are replaced by the identity."""
    from torch import nn
    from torch.func import stack_module_state

    from posgeom.nn._batched import batched_logits

    models = [ModelSpec(vocab_size=8, n_positions=6, d_model=8).build(seed=s) for s in (0, 1, 2)]
    for model in models:
        for block in model.blocks:
            block.ln1, block.ln2 = nn.Identity(), nn.Identity()
        model.ln_final = nn.Identity()
    params, buffers = stack_module_state(models)
    assert not any("ln" in name for name in params)
    X = torch.as_tensor(pair_data()[0][:10])
    got = batched_logits(models[0], params, buffers, X.expand(3, -1, -1), None, pooled=True)
    for k, model in enumerate(models):
        torch.testing.assert_close(got[k], model(X), rtol=1e-12, atol=1e-12)


def test_fit_ensemble_rejects_bad_arguments():
    spec, config, data = ModelSpec(vocab_size=8, n_positions=6, d_model=8), TrainConfig(epochs=1, lr=0.1), pair_data()
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

    with pytest.raises(ValueError, match="one per seed"):
        fit_ensemble(spec, [data, data], seeds=(0, 1, 2), config=config)
    with pytest.raises(ValueError, match="equal shapes"):
        fit_ensemble(spec, [data, pair_data(n=40)], seeds=(0, 1), config=config)
    with pytest.raises(ValueError, match="equal shapes"):
        fit_ensemble(spec, [data, pair_data(length=5)], seeds=(0, 1), config=config)
    with pytest.raises(ValueError, match="padding_mask"):
        fit_ensemble(spec, [data, pair_data(padded=True)], seeds=(0, 1), config=config)
    X, y = data
    with pytest.raises(ValueError, match="n_classes"):
        fit_ensemble(spec, [data, (X, y + 2)], seeds=(0, 1), config=config)
