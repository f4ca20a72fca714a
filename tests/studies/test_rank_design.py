"""Tests of posgeom.studies.rank_design: the block-swap task, the paired MDE, the rank comparison, the curves."""

import numpy as np
import pytest
from scipy import stats

from posgeom import synthetic_corpus, synthetic_distributions
from posgeom.nn import TrainConfig
from posgeom.studies.rank_design import block_swap_task, detection_curve, paired_mde, rank_comparison


@pytest.fixture(scope="module")
def mu():
    return synthetic_distributions(8, 12, rng=0, regime="abrupt", n_topics=4)


def test_block_swap_labels_are_balanced(mu):
    task = block_swap_task(mu, 400, 4, rng=3)
    assert task.X.shape == (400, 8) and set(np.unique(task.y)) == {0, 1}
    assert 0.4 < task.y.mean() < 0.6


def test_block_swap_is_reproducible_and_rejects_bad_blocks(mu):
    a, b = block_swap_task(mu, 50, 4, rng=1), block_swap_task(mu, 50, 4, rng=1)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    with pytest.raises(ValueError):
        block_swap_task(mu, 10, 3, rng=0)


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


def test_paired_mde_matches_the_noncentral_t_power():
    sd, n = 0.02, 16
    delta = paired_mde(sd, n, power=0.8)
    nc = delta / (sd / np.sqrt(n))
    q = stats.t.ppf(0.975, n - 1)
    power = stats.nct.sf(q, n - 1, nc) + stats.nct.cdf(-q, n - 1, nc)
    assert abs(power - 0.8) < 0.02
    assert paired_mde(sd, n, power=0.9) > delta
    with pytest.raises(ValueError):
        paired_mde(0.0, 5)


def _per_seed_tasks(mu, seeds, n_sequences=160, stream=0):
    return [block_swap_task(mu, n_sequences, 4, rng=np.random.default_rng([s, stream])) for s in seeds]


def test_rank_comparison_arms_parameters_and_control(mu):
    seeds = (0, 1)
    train, test = _per_seed_tasks(mu, seeds), _per_seed_tasks(mu, seeds, stream=1)
    runs = rank_comparison(train, test, ranks=(1,), seeds=seeds, d_model=4,
                           config=TrainConfig(epochs=2, lr=1e-2, batch_size=80))
    assert runs.names == ("none", "rank 1", "full")
    assert runs.parameters == (0, 1 * (8 + 4), 8 * 4)
    assert runs.seeds == seeds
    assert runs.accuracy.shape == (3, 2) and np.all((runs.accuracy >= 0) & (runs.accuracy <= 1))
    np.testing.assert_allclose(runs.deficit("rank 1"), runs["full"] - runs["rank 1"])


def test_rank_comparison_scores_each_seed_on_its_own_test_set(mu):
    # seed k is scored on test[k]: flipping the binary labels of seed 1's test set turns its accuracy a into 1 - a
    # and leaves seed 0's unchanged (the models are the same: same training sets, seeds and configuration)
    seeds, config = (0, 1), TrainConfig(epochs=2, lr=1e-2, batch_size=80)
    train, shared = _per_seed_tasks(mu, seeds), block_swap_task(mu, 160, 4, rng=7)
    flipped = type(shared)(shared.X, 1 - shared.y)
    a = rank_comparison(train, shared, ranks=(), seeds=seeds, d_model=4, config=config)
    b = rank_comparison(train, [shared, flipped], ranks=(), seeds=seeds, d_model=4, config=config)
    np.testing.assert_array_equal(b.accuracy[:, 0], a.accuracy[:, 0])
    np.testing.assert_allclose(b.accuracy[:, 1], 1 - a.accuracy[:, 1], rtol=0, atol=1e-12)


def test_rank_comparison_needs_one_training_set_per_seed(mu):
    config = TrainConfig(epochs=1, lr=1e-2, batch_size=80)
    train, test = _per_seed_tasks(mu, (0, 1)), block_swap_task(mu, 160, 4, rng=7)
    with pytest.raises(TypeError, match="one TaskData per seed"):
        rank_comparison(train[0], test, ranks=(1,), seeds=(0, 1), d_model=4, config=config)
    with pytest.raises(ValueError, match="2 datasets in train for 3 seeds"):
        rank_comparison(train, test, ranks=(1,), seeds=(0, 1, 2), d_model=4, config=config)
    with pytest.raises(ValueError, match="1 datasets in test for 2 seeds"):
        rank_comparison(train, [test], ranks=(1,), seeds=(0, 1), d_model=4, config=config)
    with pytest.raises(ValueError, match="equal shapes"):
        rank_comparison([train[0], block_swap_task(mu, 80, 4, rng=1)], test, ranks=(1,), seeds=(0, 1),
                        d_model=4, config=config)


def test_detection_curve_finds_the_known_rank_and_nothing_in_stationary_text():
    X = synthetic_corpus(1500, 12, 40, rng=0, regime="abrupt")
    curve = detection_curve(X, 40, [1500], rng=0, n_null=20, repeats=2)
    assert curve.shape == (1, 2) and np.all(curve == 3)
    S = synthetic_corpus(1500, 12, 40, rng=0, regime="stationary")
    assert np.all(detection_curve(S, 40, [1500], rng=0, n_null=20) <= 1)
    with pytest.raises(ValueError):
        detection_curve(X, 40, [2000], rng=0)


def test_decide_requires_power_and_reads_as_plain_text():
    from posgeom.inference import equivalence_test
    from posgeom.studies.rank_design import decide

    rng = np.random.default_rng(0)
    small = rng.normal(0.0, 0.01, 12)
    assert decide(equivalence_test(small, 0.05)) == "equivalent"
    assert decide(equivalence_test(small + 0.2, 0.05)) == "loses"
    # a noisy design: the interval may lie above 0, but without power the verdict is undetermined
    assert decide(equivalence_test(rng.normal(0.0, 0.2, 4), 0.05)) == "undetermined"
    assert repr(decide(equivalence_test(small, 0.05))) == "equivalent"


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
