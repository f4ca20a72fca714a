"""Tests of Chapter 6's studies: the block-swap task, the rank comparison, its stored runs, parallel
analysis."""

import numpy as np
import pytest
from stored_runs import assert_reproduces

from posgeom import synthetic_corpus, synthetic_distributions
from posgeom.nn import TrainConfig
from posgeom.studies.parametrisation import detection_curve
from posgeom.studies.rank_design import _block_swap_task, rank_comparison


def block_swap_task(mu, n_sequences, n_blocks, *, rng):
    return _block_swap_task(np.asarray(mu, dtype=float), n_sequences, n_blocks, np.random.default_rng(rng))


@pytest.fixture(scope="module")
def mu():
    return synthetic_distributions(8, 12, rng=0, regime="abrupt", n_topics=4)


def test_block_swap_labels_are_balanced(mu):
    task = block_swap_task(mu, 400, 4, rng=3)
    assert task.X.shape == (400, 8) and set(np.unique(task.y)) == {0, 1}
    assert 0.4 < task.y.mean() < 0.6


def test_swapped_sequences_differ_from_intact_by_a_block_exchange():
    # disjoint tokens per block: every position's token reveals its block
    n, K = 8, 4
    mu = np.zeros((n, K))
    mu[np.arange(n), np.arange(n) // 2] = 1.0
    task = block_swap_task(mu, 200, K, rng=0)
    blocks = task.X.reshape(200, K, 2)[:, :, 0]
    intact = np.all(blocks == np.arange(K), axis=1)
    np.testing.assert_array_equal(intact, task.y == 0)
    moved = (blocks != np.arange(K)).sum(axis=1)
    assert set(moved[task.y == 1]) == {2}


@pytest.fixture(scope="module")
def runs(mu):
    config = TrainConfig(epochs=2, lr=1e-2, batch_size=80)
    return rank_comparison(mu, n_blocks=4, n_train=160, n_test=160, ranks=(1,), seeds=(0, 1), d_model=4,
                           config=config)


def test_rank_comparison_arms_parameters_and_deficit(runs):
    assert runs.names == ("none", "rank 1", "full")
    assert runs.parameters == (0, 1 * (8 + 4), 8 * 4)
    assert runs.seeds == (0, 1)
    assert runs.accuracy.shape == (3, 2) and np.all((runs.accuracy >= 0) & (runs.accuracy <= 1))
    np.testing.assert_allclose(runs.deficit("rank 1"), runs["full"] - runs["rank 1"])
    # the arm without positions cannot tell a swapped sequence from an intact one: at most chance plus noise
    assert np.all(runs["none"] < 0.5 + 3 * 0.5 / np.sqrt(160))


def test_rank_comparison_is_reproducible_and_rejects_bad_blocks(mu, runs):
    config = TrainConfig(epochs=2, lr=1e-2, batch_size=80)
    again = rank_comparison(mu, n_blocks=4, n_train=160, n_test=160, ranks=(1,), seeds=(0, 1), d_model=4,
                            config=config)
    np.testing.assert_array_equal(again.accuracy, runs.accuracy)
    with pytest.raises(ValueError, match="must divide"):
        rank_comparison(mu, n_blocks=3, n_train=10, n_test=10, ranks=(1,), seeds=(0,), d_model=4, config=config)


def test_detection_curve_finds_the_known_rank_and_nothing_in_stationary_text():
    X = synthetic_corpus(1500, 12, 40, rng=0, regime="abrupt")
    curve = detection_curve(X, 40, [1500], rng=0, n_null=20, repeats=2)
    assert curve.shape == (1, 2) and np.all(curve == 3)
    S = synthetic_corpus(1500, 12, 40, rng=0, regime="stationary")
    assert np.all(detection_curve(S, 40, [1500], rng=0, n_null=20) <= 1)
    with pytest.raises(ValueError):
        detection_curve(X, 40, [2000], rng=0)


@pytest.mark.slow
def test_stored_confirmatory_runs_reproduce():
    # the design's first two seeds, re-run alone, give the stored accuracies: exactly (JSON floats round-trip) on the
    # CPU that stored them, else as a draw of the stored seeds
    import dataclasses

    from posgeom.studies.designs import Design
    from posgeom.studies.rank_design import design_runs

    design = Design.load("ch06_rank")
    stored = design.results()
    fields = dict(design.fields, seed_stop=design["seed_start"] + 2, n_seeds=2)
    again = design_runs(dataclasses.replace(design, fields=fields))
    assert list(again.names) == stored["names"]
    assert_reproduces(again.accuracy, stored["accuracy"], "accuracy", seeds_axis=1)


def test_parallel_analysis_depends_only_on_the_tokens_that_occur():
    # the same corpus with its ids spread over a larger vocabulary, and with arbitrary ids under the padding,
    # gives the same eigenvalues, null quantiles (same random stream) and signal rank
    from posgeom.studies import parallel_analysis

    X = synthetic_corpus(800, 8, 20, rng=0, regime="abrupt")
    mask = np.zeros(X.shape, dtype=bool)
    mask[::3, -2:] = True  # every third sequence is two tokens shorter
    a = parallel_analysis(X, 20, rng=1, padding_mask=mask, n_null=15)
    spread = np.where(mask, 199, 7 * X + 3)
    b = parallel_analysis(spread, 200, rng=1, padding_mask=mask, n_null=15)
    assert a.signal_rank == b.signal_rank == 3
    np.testing.assert_allclose(b.eigenvalues, a.eigenvalues, rtol=0, atol=1e-12)
    np.testing.assert_allclose(b.null_quantile, a.null_quantile, rtol=0, atol=1e-12)
    with pytest.raises(ValueError):
        parallel_analysis(X, 10, rng=0)  # ids beyond the vocabulary


@pytest.mark.slow
def test_stored_exploratory_runs_reproduce():
    # Chapter 6's exploratory runs (seeds 0-11, stored once by the design command): seed 0, re-run alone, gives the
    # stored accuracies of every arm (bit for bit on the CPU that stored them, else as a draw of the stored seeds)
    import dataclasses

    from posgeom.studies.designs import Design
    from posgeom.studies.rank_design import RankComparison, design_runs

    design = Design.load("ch06_exploratory")
    stored = design.read(RankComparison)
    assert design["status"] == "exploratory" and stored.seeds == tuple(range(12))
    again = design_runs(dataclasses.replace(design, fields=dict(design.fields, seed_stop=1, n_seeds=1)))
    assert again.names == stored.names and again.parameters == stored.parameters
    assert_reproduces(again.accuracy, stored.accuracy, "accuracy", seeds_axis=1)
