"""Symmetry defects, seeded runs and per-unit accuracies of Chapter 3 (posgeom.studies.necessity_analysis)."""

import numpy as np
import pytest
import torch

from posgeom.nn import TransformerClassifier, seed_everything
from posgeom.nn import order_task, probe_data
from posgeom.studies.necessity_analysis import (
    defect_table,
    detectable_effect,
    interval_power,
    pair_lower_bounds,
    plot_scheme_accuracy,
    symmetry_defects,
    train_seeds,
    unit_accuracy,
)

IDS = torch.randint(0, 7, (8, 6), generator=torch.Generator().manual_seed(0))
PERM = torch.tensor([2, 0, 5, 1, 4, 3])


def test_defects_vanish_without_positions_and_not_with_them():
    table = defect_table(["none", "learned"], IDS, PERM, vocab_size=7, d_model=8, n_heads=2, n_layers=1)
    rel = table["equivariance defect"] / table["output scale"]
    assert rel["none"] < 1e-5 and rel["learned"] > 1e-3
    assert list(table.columns) == ["equivariance defect", "invariance defect", "output scale"]


def test_causal_mask_breaks_the_symmetry():
    table = defect_table(["none"], IDS, PERM, vocab_size=7, d_model=8, n_heads=2, n_layers=1, causal=True)
    assert table.loc["none", "invariance defect"] > 1e-3


def test_symmetry_defects_of_the_identity_permutation_are_zero():
    seed_everything(0)
    model = TransformerClassifier(7, 6, 8, 2, 1, positional="rope").eval()
    tok, pool, scale = symmetry_defects(model, IDS, torch.arange(6))
    assert tok == 0.0 and pool == 0.0 and scale > 0


@pytest.fixture(scope="module")
def runs():
    data = order_task(40, 6, 6, rng=0, regime="uniform")
    return data, train_seeds(data.X, data.y, positional="learned", seeds=[0, 1], epochs=2)


def test_train_seeds_gives_distinct_runs(runs):
    data, models = runs
    assert len(models) == 2
    a, b = (m.positional_encoding() for m in models)
    assert not torch.equal(a, b)


def test_unit_accuracy_by_pair_and_by_sequence(runs):
    data, models = runs
    per_seq = unit_accuracy(models[0], data.X, data.y)
    per_pair = unit_accuracy(models[0], data.X, data.y, pairs=True)
    assert per_seq.shape == (len(data.X),) and per_pair.shape == (len(data.X) // 2,)
    assert np.isclose(per_seq.mean(), per_pair.mean())
    with pytest.raises(ValueError):
        unit_accuracy(models[0], data.X[:-1], data.y[:-1], pairs=True)


def test_unit_accuracy_of_token_labels_is_per_sequence():
    X, y = probe_data(12, 5, bos=5, rng=np.random.default_rng(0))
    models = train_seeds(X, y, positional="none", seeds=[0], n_classes=5, vocab_size=6, epochs=1)
    acc = unit_accuracy(models[0], X, y)
    assert acc.shape == (12,) and np.all((acc >= 0) & (acc <= 1))


def test_pair_lower_bounds_is_below_the_accuracy(runs):
    data, models = runs
    bounds = pair_lower_bounds(models, data.X, data.y, confidence=0.99)
    accs = [unit_accuracy(m, data.X, data.y).mean() for m in models]
    assert bounds.shape == (2,) and np.all(bounds <= np.array(accs) + 1e-12)


def test_plot_scheme_accuracy_draws_one_bar_per_configuration():
    import pandas as pd

    table = pd.DataFrame(
        {"test accuracy": [0.5, 1.0], "low": [0.5, 0.9], "high": [0.5, 1.0], "seeds": [[0.5, 0.5], [1.0, 0.95]]},
        index=pd.MultiIndex.from_tuples([("none", "bidirectional"), ("none", "causal")]),
    )
    fig = plot_scheme_accuracy(table, 0.5)
    assert len(fig.axes[0].patches) == 2


def test_interval_power_is_the_level_at_zero_and_matches_simulation():
    from scipy import stats

    assert np.isclose(interval_power(0.0, 5, confidence=0.99), 0.005)
    assert interval_power(1.0, 5) < interval_power(2.0, 5) < interval_power(2.0, 10)
    rng = np.random.default_rng(0)
    x = rng.normal(2.5, 1.0, size=(20000, 5))  # effect 2.5 SDs over a reference of 0
    t = x.mean(axis=1) / (x.std(axis=1, ddof=1) / np.sqrt(5))
    simulated = np.mean(t > stats.t.ppf(0.995, 4))
    assert abs(simulated - interval_power(2.5, 5)) < 4 * np.sqrt(0.25 / 20000)


def test_detectable_effect_inverts_the_power():
    d = detectable_effect(5, confidence=0.99, power=0.8)
    assert np.isclose(interval_power(d, 5), 0.8)
    assert detectable_effect(20) < d  # more seeds, smaller detectable effect
    with pytest.raises(ValueError):
        detectable_effect(5, power=0.001)
    with pytest.raises(ValueError):
        interval_power(1.0, 1)
