"""Symmetry defects and seeded runs of Chapter 1 (posgeom.studies.necessity_analysis)."""

import numpy as np
import pytest
import torch
from stored_runs import assert_reproduces

from posgeom.inference import t_interval
from posgeom.nn import TaskData, multiset_bound, order_task, predict, probe_data
from posgeom.studies.necessity_analysis import SeedRuns, defect_table, train_runs

IDS = torch.randint(0, 7, (8, 6), generator=torch.Generator().manual_seed(0))
PERM = torch.tensor([2, 0, 5, 1, 4, 3])
ARCH = dict(vocab_size=7, d_model=8, n_heads=2, n_layers=1)


def test_defects_vanish_without_positions_and_not_with_them():
    table = defect_table(["none", "learned"], IDS, PERM, **ARCH)
    rel = table["equivariance defect"] / table["output scale"]
    assert rel["none"] < 1e-5 and rel["learned"] > 1e-3
    assert list(table.columns) == ["equivariance defect", "invariance defect", "output scale"]


def test_causal_mask_breaks_the_symmetry():
    table = defect_table(["none"], IDS, PERM, causal=True, **ARCH)
    assert table.loc["none", "invariance defect"] > 1e-3 * table.loc["none", "output scale"]


def test_defects_of_the_identity_permutation_are_zero():
    row = defect_table(["rope"], IDS, torch.arange(6), **ARCH).loc["rope"]
    assert row["equivariance defect"] == 0.0 and row["invariance defect"] == 0.0 and row["output scale"] > 0


def test_defect_table_rejects_a_non_permutation():
    with pytest.raises(ValueError, match="perm"):
        defect_table(["none"], IDS, [0, 0, 1, 2, 3, 4], **ARCH)


def _flipped(data):
    return TaskData(data.X, 1 - data.y)


@pytest.fixture(scope="module")
def opposite_runs():
    """Seed 0 trains on "a before b", seed 1 on the opposite labels: each run must follow its own training set."""
    train = order_task(150, 6, 6, rng=0, regime="uniform")
    test = order_task(100, 6, 6, rng=1, regime="uniform")
    runs = train_runs([train, _flipped(train)], test, positional="learned", seeds=[0, 1], vocab_size=6)
    return train, test, runs


def test_each_seed_trains_on_its_own_set(opposite_runs):
    train, test, runs = opposite_runs
    assert isinstance(runs, SeedRuns) and len(runs.models) == 2
    # a run that ignored its own set would score alike; run 0's bound over independent pairs clears the
    # ceiling 1/2 and run 1, taught the opposite labels, falls below it
    assert runs.run_lower[0] > 0.5 > runs.accuracy[1]
    own = [(predict(m, d.X).argmax(-1).numpy() == d.y).mean() for m, d in zip(runs.models, [train, _flipped(train)])]
    assert np.allclose(runs.train_accuracy, own)


def test_scores_are_per_pair_and_match_the_predictions(opposite_runs):
    train, test, runs = opposite_runs
    assert runs.unit_accuracy.shape == (2, len(test) // 2)
    assert set(np.unique(runs.unit_accuracy)) <= {0.0, 0.5, 1.0}
    direct = [(predict(m, test.X).argmax(-1).numpy() == test.y).mean() for m in runs.models]
    assert np.allclose(runs.accuracy, direct)
    iv = t_interval(runs.accuracy, confidence=0.99)
    assert (runs.interval.lower, runs.interval.upper) == (iv.lower, iv.upper)
    assert np.all(runs.run_lower <= runs.accuracy)


def test_position_free_runs_stay_at_the_multiset_ceiling():
    train = [order_task(40, 6, 6, rng=s, regime="uniform") for s in (0, 1)]
    test = order_task(30, 6, 6, rng=2, regime="uniform")
    runs = train_runs(train, test, positional="none", seeds=[0, 1], vocab_size=6)
    assert np.all(runs.accuracy <= multiset_bound(test.X, test.y))
    assert np.all(runs.train_accuracy <= [multiset_bound(d.X, d.y) for d in train])


def test_token_labels_are_scored_per_sequence():
    train = [probe_data(30, 5, bos=5, rng=s) for s in (0, 1)]
    X, y = probe_data(12, 5, bos=5, rng=2)
    runs = train_runs(train, (X, y), positional="none", seeds=[0, 1], vocab_size=6, n_classes=5)
    assert runs.unit_accuracy.shape == (2, 12)
    lows = [t_interval(u, confidence=0.99).lower for u in runs.unit_accuracy]
    assert np.allclose(runs.run_lower, lows)


def test_train_runs_rejects_one_shared_set_and_a_wrong_count():
    data = order_task(10, 6, 6, rng=0, regime="uniform")
    with pytest.raises(TypeError, match="one per seed"):
        train_runs(data, data, positional="none", seeds=[0, 1], vocab_size=6)
    with pytest.raises(TypeError, match="one per seed"):
        train_runs((data.X, data.y), data, positional="none", seeds=[0, 1], vocab_size=6)
    with pytest.raises(ValueError, match="one training set per seed"):
        train_runs([data], data, positional="none", seeds=[0, 1], vocab_size=6)
    with pytest.raises(ValueError, match="partners"):
        train_runs([data], (data.X[:-1], data.y[:-1]), positional="none", seeds=[0], vocab_size=6)


@pytest.mark.slow
def test_stored_confirmatory_runs_reproduce():
    # the design's first two seeds, re-run alone, give the stored accuracies and checks: exactly (JSON round-trips)
    # on the CPU that stored them, else as a draw of the stored seeds
    import dataclasses

    from posgeom.studies.designs import Design
    from posgeom.studies.necessity_analysis import design_runs

    design = Design.load("ch03_runs")
    stored = design.results()
    fields = dict(design.fields, seed_stop=design["seed_start"] + 2, n_seeds=2)
    again = design_runs(dataclasses.replace(design, fields=fields))
    assert again.keys() == stored.keys() - {"design", "design_sha256", "command", "seeds"}
    assert again["ceiling"] == stored["ceiling"]  # of the data alone
    for key, value in again.items():
        if isinstance(value, dict):
            assert value.keys() == stored[key].keys(), key
            for k, v in value.items():
                assert_reproduces(v, stored[key][k], f"{key}.{k}")
        elif key != "ceiling":
            assert_reproduces(value, stored[key], key)
