"""The width sweep of the NTK appendix (posgeom.studies.ntk_rates)."""

import numpy as np
import pytest

import posgeom as pg
from posgeom.studies.ntk_rates import kernel_deviations, lag_spearman, loglog_fit, plot_rates, train_runs

WIDTHS = [16, 32, 64]


def test_loglog_fit_recovers_an_exponent_and_its_interval_can_exclude_it():
    w = np.repeat(WIDTHS, 3).astype(float)
    noise = np.tile([0.95, 1.0, 1.05], 3)
    fit = loglog_fit(w, 2 * w**-0.5 * noise, confidence=0.99)
    assert fit["low"] <= -0.5 <= fit["high"] and fit["points"] == 9
    flat = loglog_fit(w, 2 * noise, confidence=0.99)
    assert not (flat["low"] <= -0.5 <= flat["high"])


def test_lag_spearman_of_a_monotone_table_is_one():
    x = np.arange(6.0)
    assert lag_spearman(np.abs(x[:, None] - x[None, :])) == pytest.approx(1.0)


def test_kernel_deviations_has_one_distinct_seed_per_network():
    k = kernel_deviations(4, 3, WIDTHS, sigma0=0.5, n_seeds=2, seed0=900)
    assert len(k) == 6 and k["seed"].is_unique
    assert np.all(k["diagonal"] > 0) and np.all(k["off-diagonal"] >= 0)


@pytest.fixture(scope="module")
def sweep():
    mu = pg.synthetic_distributions(5, 4, rng=0, regime="smooth")
    return train_runs(np.sqrt(mu), WIDTHS, loss="mse", sigma0=lambda w: 0.5, lr=0.5, steps=5, n_seeds=2,
                      seed0=100)


def test_train_runs_makes_independent_runs(sweep):
    runs, D = sweep
    assert len(runs) == 6 and runs["seed"].is_unique
    assert set(runs.columns) >= {"width", "seed", "error", "rho", "discordance", "gap"}
    assert D.shape == (5, 5) and np.all(runs["error"] > 0)


def test_train_runs_is_reproducible(sweep):
    mu = pg.synthetic_distributions(5, 4, rng=0, regime="smooth")
    again, _ = train_runs(np.sqrt(mu), WIDTHS, loss="mse", sigma0=lambda w: 0.5, lr=0.5, steps=5, n_seeds=2,
                          seed0=100)
    assert np.allclose(again["error"], sweep[0]["error"])


def test_plot_rates_draws_three_panels(sweep):
    runs, D = sweep
    fit = loglog_fit(runs["width"], runs["error"])
    fig = plot_rates([("mse", runs, fit, "o")], [("mse", runs, 0.5, "o")], D, widths=WIDTHS,
                     title="t")
    assert len(fig.axes) >= 3
