"""The width sweep of the NTK appendix (posgeom.studies.ntk_rates)."""

import numpy as np
import pytest
from stored_runs import assert_reproduces

import posgeom as pg
from posgeom.encodings import rank_correlations
from posgeom.studies.ntk_rates import kernel_deviations, train_runs

WIDTHS = [16, 32, 64]


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
    assert set(runs.columns) >= {"width", "seed", "error", "displacement", "rho", "discordance", "gap"}
    assert D.shape == (5, 5) and np.all(runs["error"] > 0)


def test_train_runs_is_reproducible(sweep):
    mu = pg.synthetic_distributions(5, 4, rng=0, regime="smooth")
    again, _ = train_runs(np.sqrt(mu), WIDTHS, loss="mse", sigma0=lambda w: 0.5, lr=0.5, steps=5, n_seeds=2,
                          seed0=100)
    assert np.array_equal(again["error"], sweep[0]["error"])


def test_train_runs_rho_is_the_learned_distances_spearman_with_the_lag(sweep):
    runs, D = sweep
    assert runs["rho"].iloc[-1] == rank_correlations(D, kind="distances").spearman


def test_displacement_equals_error_when_the_table_starts_at_zero():
    mu = pg.synthetic_distributions(5, 4, rng=0, regime="smooth")
    runs, _ = train_runs(np.sqrt(mu), WIDTHS, loss="mse", sigma0=lambda w: 0.0, lr=0.5, steps=5, n_seeds=1,
                         seed0=100, linearised=False)
    assert np.allclose(runs["displacement"], runs["error"]) and np.all(runs["displacement"] > 0)


def test_seed_stride_below_the_runs_per_width_is_refused():
    mu = pg.synthetic_distributions(4, 3, rng=0, regime="smooth")
    with pytest.raises(ValueError, match="seed_stride"):
        train_runs(np.sqrt(mu), [8, 16], loss="mse", sigma0=lambda w: 0.5, lr=0.5, steps=2, n_seeds=3, seed0=0,
                   seed_stride=2, linearised=False)


@pytest.mark.slow
def test_stored_confirmatory_runs_reproduce():
    # the design's runs at the first width (6 per arm), re-run, give exactly the stored errors (JSON floats round-trip)
    from posgeom.studies.designs import Design
    from posgeom.studies.ntk_rates import design_runs

    design = Design.load("app_rates")
    stored = design.results()
    assert sorted(stored["main_seed"] + stored["control_seed"]) == list(design.seeds)
    again = design_runs(design, n_widths=1)
    S = again["runs_per_width"]
    assert S == design["n_seeds"] // 10 == stored["runs_per_width"]
    for key, value in again.items():
        if not key.startswith(("main_", "control_")):
            continue
        if key.endswith(("_width", "_seed")):
            assert value == stored[key][:S], key
        else:  # exact on the CPU that stored them, else as a draw of the stored seeds
            assert_reproduces(value, stored[key], key)
