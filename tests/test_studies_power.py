"""Tests for the dose-response design of Chapter 9 and the budgets of Chapter 8 (posgeom.studies)."""

import numpy as np
import pytest
from scipy.stats import spearmanr
from scipy.stats import t as student_t

from posgeom.inference import spearman_interval, spearman_power, t_interval
from posgeom.nn import TransformerClassifier, seed_everything
from posgeom.studies import (
    centre_task,
    corpus_distances,
    order_task,
    permute_rows,
    scaled_mds_encoding,
    train_with_snapshots,
)


def test_permute_rows_is_a_derangement_of_the_chosen_rows():
    P = np.random.default_rng(0).normal(size=(12, 5))
    for f in (0.25, 0.5, 1.0):
        Q, moved = permute_rows(P, f, rng=3)
        assert len(moved) == round(f * 12)
        assert np.all(np.any(Q[moved] != P[moved], axis=1))
        keep = np.setdiff1d(np.arange(12), moved)
        assert np.array_equal(Q[keep], P[keep])
        assert np.allclose(np.sort(Q, axis=0), np.sort(P, axis=0))
    assert np.array_equal(permute_rows(P, 0.5, rng=3)[0], permute_rows(P, 0.5, rng=3)[0])
    with pytest.raises(ValueError):
        permute_rows(P, 1.5, rng=0)


def test_scaled_mds_encoding_has_zero_stress_and_sinusoidal_scale():
    from posgeom.geometry import pairwise_distances
    from posgeom.stress import stress_of_distances

    D = corpus_distances(order_task(60, 8, 12, rng=0))
    P, P_model = scaled_mds_encoding(D, 16)
    assert stress_of_distances(pairwise_distances(P), D, scale="optimal") < 1e-9
    ratio = P_model / np.where(P == 0, 1, P)
    assert np.allclose(ratio[P != 0], ratio[P != 0][0])


def test_centre_task_is_reversal_invariant_and_paired():
    data = centre_task(30, 12, 16, rng=1)
    half = len(data) // 2
    assert np.all(data.y[:half] == 1) and np.all(data.y[half:] == 0)
    a_rev = np.argmax(data.X[:, ::-1] == 0, axis=1)
    assert np.array_equal(data.y, ((a_rev >= 3) & (a_rev < 9)).astype(int))
    assert np.array_equal(np.sort(data.X[:half], axis=1), np.sort(data.X[half:], axis=1))
    with pytest.raises(ValueError):
        centre_task(10, 10, 16, rng=0)


def test_t_interval_uses_n_minus_1_degrees_of_freedom():
    x = np.array([0.7, 0.8, 0.75, 0.9, 0.65])
    r = t_interval(x)
    half = student_t.ppf(0.975, 4) * x.std(ddof=1) / np.sqrt(5)
    assert r.estimate == pytest.approx(x.mean()) and r.upper - r.estimate == pytest.approx(half)


def test_spearman_interval_matches_scipy_estimate_and_covers_it():
    rng = np.random.default_rng(0)
    x = rng.normal(size=30)
    y = x + rng.normal(size=30)
    r = spearman_interval(x, y)
    assert r.estimate == pytest.approx(spearmanr(x, y)[0])
    assert r.lower < r.estimate < r.upper and r.excludes(0.0)


def test_spearman_power_has_its_level_and_grows_with_rho_and_n():
    small, large = spearman_power(10, rng=0, n_sim=1000), spearman_power(40, rng=0, n_sim=1000)
    band = 3 * np.sqrt(0.05 * 0.95 / 1000)
    assert abs(small.power[0] - 0.05) < band and abs(large.power[0] - 0.05) < band
    assert np.all(np.diff(large.power) > -0.03)
    assert large.detectable() < small.detectable()


def test_train_with_snapshots_matches_budgets_and_is_reproducible():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 6, size=(16, 8))
    Y = np.where(rng.random((16, 8)) < 0.3, X, -100)

    def run():
        seed_everything(0)
        model = TransformerClassifier(6, 8, 8, n_heads=2, n_layers=1, positional="learned", n_classes=6)
        return train_with_snapshots(model, X, Y, epochs=(2, 0, 1), lr=1e-2, seed=0, batch_size=8)

    a, b = run(), run()
    assert a.epochs == (0, 1, 2) and a.steps.tolist() == [0, 2, 4]
    assert all(np.array_equal(p, q) for p, q in zip(a.encodings, b.encodings))
    assert not np.array_equal(a.encodings[0], a.encodings[-1])
    with pytest.raises(ValueError):
        train_with_snapshots(None, X, Y, epochs=(1, 1), lr=1e-2, seed=0)
