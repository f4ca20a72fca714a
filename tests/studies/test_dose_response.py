"""The seed-level dose-response of Chapter 9 (posgeom.studies.dose_response)."""

import functools

import numpy as np
import pytest
from stored_runs import assert_reproduces

from posgeom.nn import TrainConfig, order_task
from posgeom.studies.dose_response import (
    DoseRuns,
    _permute_rows,
    _rms,
    _scaled_mds_encoding,
    _split_pairs,
    _within_seed_spearman,
    extrapolation_runs,
    seeded_dose_response,
    toward_line,
    within_seed_power,
    xor_task,
)

TINY = TrainConfig(epochs=2, lr=1e-2, batch_size=20)


def test_split_pairs_keeps_partners_together():
    data = order_task(10, 6, 10, rng=0)
    a, b = _split_pairs(data, 4)
    assert len(a) == 8 and len(b) == 12
    for part in (a, b):
        half = len(part) // 2
        assert np.array_equal(part.y[:half], 1 - part.y[half:])  # partners have opposite labels
        assert np.array_equal(np.sort(part.X[:half], axis=1), np.sort(part.X[half:], axis=1))
    with pytest.raises(ValueError):
        _split_pairs(data, 10)


def test_xor_task_label_ignores_positions_and_is_balanced():
    data = xor_task(400, 8, 16, rng=3)
    label = (data.X == 0).any(axis=1) ^ (data.X == 1).any(axis=1)
    assert np.array_equal(data.y, label)
    assert abs(data.y.mean() - 0.5) < 0.05
    assert ((data.X == 0).sum(axis=1) <= 1).all() and ((data.X == 1).sum(axis=1) <= 1).all()
    shuffled = np.random.default_rng(0).permuted(data.X, axis=1)
    assert np.array_equal(data.y, (shuffled == 0).any(axis=1) ^ (shuffled == 1).any(axis=1))


def test_within_seed_spearman_rows_and_constant_rows():
    stress = np.array([[0.0, 1.0, 2.0], [0.0, 1.0, 2.0], [0.0, 1.0, 2.0]])
    acc = np.array([[0.9, 0.8, 0.7], [0.1, 0.2, 0.3], [0.5, 0.5, 0.5]])
    assert _within_seed_spearman(stress, acc).tolist() == [-1.0, 1.0, 0.0]


def _runs(stress, accuracy):
    return DoseRuns(fractions=np.linspace(0, 1, stress.shape[1]), seeds=tuple(range(len(stress))), stress=stress,
                    test_accuracy=accuracy)


def test_association_detects_an_effect_and_not_noise():
    rng = np.random.default_rng(0)
    stress = np.tile(np.arange(5.0), (20, 1))
    effect = _runs(stress, -stress + rng.normal(0, 1, stress.shape)).association(power=0.9, rng=0, n_permutations=999)
    assert effect.p_value < 0.01 and effect.interval.upper < 0 and effect.verdict == "lower stress, higher accuracy"
    assert effect.r_s.shape == (20,) and effect.interval.estimate == pytest.approx(effect.r_s.mean())
    # under the null (accuracy independent of the dose) the p-value is uniform: above 0.01 with probability 0.99
    noise = _runs(stress, rng.normal(size=stress.shape))
    assert noise.association(power=0.9, rng=0, n_permutations=999).p_value > 0.01
    moved = noise.association(power=0.5, rng=0, first_dose=1, n_permutations=99)
    assert np.array_equal(moved.r_s, _within_seed_spearman(stress[:, 1:], noise.test_accuracy[:, 1:]))
    with pytest.raises(ValueError):
        noise.association(power=0.9, rng=0, first_dose=4)


def test_association_verdict():
    stress = np.tile(np.arange(4.0), (6, 1))
    up = np.tile([[0.0, 1.0, 2.0, 3.0], [1.0, 0.0, 3.0, 2.0]], (3, 1))  # r_s = 1 and 0.6
    assert _runs(stress, up).association(power=0.1, rng=0, n_permutations=9).verdict == "lower stress, lower accuracy"
    flat = np.tile([[1.0, 0.0, 3.0, 2.0], [2.0, 3.0, 0.0, 1.0]], (3, 1))  # r_s = 0.6 and -0.6
    assert _runs(stress, flat).association(power=0.85, rng=0, n_permutations=9).verdict == "no association detected"
    assert _runs(stress, flat).association(power=0.79, rng=0, n_permutations=9).verdict == "undetermined"


def test_within_seed_power_has_its_level_and_grows_with_the_effect():
    level = within_seed_power(20, 5, 0.0, rng=0, n_sim=4000)
    assert abs(level - 0.05) < 3 * np.sqrt(0.05 * 0.95 / 4000)
    powers = [within_seed_power(20, 5, r, rng=0, n_sim=2000) for r in (-0.1, -0.3, -0.5)]
    assert powers == sorted(powers)
    assert within_seed_power(40, 5, -0.3, rng=0, n_sim=2000) > within_seed_power(10, 5, -0.3, rng=0, n_sim=2000)
    with pytest.raises(ValueError):
        within_seed_power(20, 5, 1.0, rng=0)


def test_seeded_dose_response_is_reproducible_and_moves_stress_only_with_the_dose():
    kwargs = dict(seeds=(0, 3), fractions=(0.0, 0.5, 1.0), n_pairs=20, n_test_pairs=10, n_positions=6,
                  vocab_size=10, d_model=8, config=TINY)
    a = seeded_dose_response(order_task, **kwargs)
    b = seeded_dose_response(order_task, **kwargs)
    assert a.stress.shape == a.test_accuracy.shape == (2, 3)
    assert np.all(a.stress[:, 0] < 1e-9) and np.all(a.stress[:, 1:] > 0)
    assert np.array_equal(a.stress, b.stress) and np.array_equal(a.test_accuracy, b.test_accuracy)
    assert np.all((a.test_accuracy >= 0) & (a.test_accuracy <= 1))
    with pytest.raises(ValueError):
        seeded_dose_response(order_task, **{**kwargs, "seeds": (1, 1)})
    with pytest.raises(ValueError):
        seeded_dose_response(order_task, **{**kwargs, "fractions": (0.5,)})


def test_seeded_dose_response_takes_its_dose_from_a_callable():
    kwargs = dict(seeds=(0,), fractions=(0.0, 1.0), n_pairs=20, n_test_pairs=10, n_positions=6, vocab_size=10,
                  d_model=8, config=TINY)
    seen = []

    def scale_up(P, fraction, rng):  # distances all grow by the same factor: scale-optimal stress stays 0
        seen.append(fraction)
        return P * (1 + fraction)

    runs = seeded_dose_response(order_task, dose=scale_up, **kwargs)
    assert seen == [0.0, 1.0] and np.all(runs.stress < 1e-9)
    default = seeded_dose_response(order_task, **kwargs)
    explicit = seeded_dose_response(order_task, dose=_permute_rows, **kwargs)
    assert np.array_equal(default.stress, explicit.stress)
    with pytest.raises(TypeError, match="dose"):
        seeded_dose_response(order_task, dose="line", **kwargs)


def test_extrapolation_runs_draws_fresh_test_sets_and_refuses_tables():
    task = functools.partial(order_task, regime="uniform")
    kwargs = dict(seeds=(0, 1), n_pairs=10, n_test_pairs=10, n_positions=6, vocab_size=10, d_model=8, config=TINY)
    run = extrapolation_runs("sinusoidal", task, **kwargs)
    assert all(v.shape == (2,) and np.all((v >= 0) & (v <= 1)) for v in (run.at_n, run.at_n_again, run.at_2n))
    for scheme in ("learned", "fixed", "low_rank"):
        with pytest.raises(ValueError):
            extrapolation_runs(scheme, task, **kwargs)
    causal = extrapolation_runs("none", task, causal=True, **kwargs)  # the mask alone carries position
    assert not np.array_equal(causal.at_n, extrapolation_runs("none", task, **kwargs).at_n)
    with pytest.raises(TypeError, match="causal"):
        extrapolation_runs("rope", task, causal="yes", **kwargs)


def test_permute_rows_is_a_derangement_of_the_chosen_rows():
    P = np.random.default_rng(0).normal(size=(12, 5))
    for f in (0.25, 0.5, 1.0, 1 / 12):
        Q = _permute_rows(P, f, np.random.default_rng(3))
        moved = np.flatnonzero(np.any(Q != P, axis=1))
        assert len(moved) == max(round(f * 12), 2)  # every chosen row really moves; one row alone cannot
        assert np.allclose(np.sort(Q, axis=0), np.sort(P, axis=0))
    assert np.array_equal(_permute_rows(P, 0.0, np.random.default_rng(3)), P)


def test_scaled_mds_encoding_has_zero_stress_and_the_sinusoid_spread():
    from posgeom.corpus import position_counts, position_distributions
    from posgeom.encodings import sinusoidal_encoding
    from posgeom.geometry import hellinger_distances, pairwise_distances
    from posgeom.stress import stress_of_distances

    data = order_task(60, 8, 12, rng=0)
    D = hellinger_distances(position_distributions(position_counts(data.X, data.length, data.vocab_size)))
    P = _scaled_mds_encoding(D, 16)
    assert stress_of_distances(pairwise_distances(P), D, scale="optimal") < 1e-9
    spread = np.mean(pairwise_distances(P) ** 2)
    assert spread == pytest.approx(np.mean(pairwise_distances(sinusoidal_encoding(8, 16)) ** 2))


@pytest.mark.slow
def test_stored_confirmatory_runs_reproduce():
    # the design's first two seeds, re-run alone, give the stored stress and accuracies (exactly on the CPU that
    # stored them, else as a draw of the stored seeds)
    import dataclasses

    from posgeom.studies.designs import Design
    from posgeom.studies.dose_response import design_runs

    design = Design.load("ch09_line")
    stored = design.results()
    fields = dict(design.fields, seed_stop=design["seed_start"] + 2, n_seeds=2)
    again = design_runs(dataclasses.replace(design, fields=fields))
    assert_reproduces(again.stress, stored["stress"], "stress")
    assert_reproduces(again.test_accuracy, stored["test_accuracy"], "test_accuracy")
    assert again.fractions.tolist() == stored["fractions"]


@pytest.mark.slow
def test_stored_exploratory_runs_reproduce():
    # Chapter 9's exploratory runs, stored once: the first two seeds of every task, re-run, give the stored values
    # (exactly on the CPU that stored them, else as a draw of the stored seeds)
    from posgeom.studies.dose_response import exploratory_runs, stored_exploratory

    stored = stored_exploratory()
    again = exploratory_runs(range(2))
    assert list(again) == list(stored) == ["order", "centre", "xor (control)"]
    for name, runs in stored.items():
        assert runs.seeds == tuple(range(24)) and again[name]["fractions"] == runs.fractions.tolist()
        assert_reproduces(again[name]["stress"], runs.stress, f"{name} stress")
        assert_reproduces(again[name]["test_accuracy"], runs.test_accuracy, f"{name} accuracy")


def test_toward_line_with_growth_keeps_the_order_and_crowds_the_first_positions():
    P = np.random.default_rng(4).normal(size=(8, 5))
    for growth in (0.0, 2.0):
        Q = toward_line(P, 1.0, None, growth=growth)
        x = (Q - Q.mean(axis=0)) @ np.linalg.svd(Q - Q.mean(axis=0))[2][0]
        x = x * np.sign(x[-1] - x[0])
        gaps = np.diff(x)
        assert np.all(gaps > 0), "the positions' order is kept"
        assert np.isclose(_rms(Q), _rms(P))
        if growth:
            assert gaps[0] < gaps[-1] / 10, "growth crowds the first positions together"
        else:
            assert np.allclose(gaps, gaps[0]), "evenly spaced without growth"
