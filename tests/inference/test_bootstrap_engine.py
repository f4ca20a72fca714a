"""Tests of the one bootstrap engine (posgeom.inference._bootstrap): resampling units, the interval's coverage of a
known truth for a non-linear statistic, and groups of texts that must stay together."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from posgeom import synthetic_distributions
from posgeom.corpus import SequenceIncidence
from posgeom.geometry import CrossFitted, Resolution, Resolved, resolved_estimand
from posgeom.inference._bootstrap import Units, bootstrap


def _sample(mu, m, gen):
    """``m`` texts whose token at position ``i`` is drawn from ``mu_i`` (independently across positions)."""
    cdf = np.cumsum(mu, axis=1)
    cdf[:, -1] = 1.0
    return (gen.random((m, mu.shape[0], 1)) > cdf[None]).sum(axis=2)


def _lowest_acceptable(replications, confidence=0.95, alpha=0.001):
    """The coverage a true ``confidence`` falls below with probability ``alpha`` (binomial)."""
    return stats.binom.ppf(alpha, replications, confidence) / replications


def test_units_keep_groups_whole():
    groups = np.array([3, 3, 1, 7, 7, 7, 1, 2])
    u = Units(8, groups=groups)
    assert u.n_units == 4 and u.describe() == "groups of texts (4 groups)"
    gen = np.random.default_rng(0)
    for _ in range(50):
        a, b = u.shuffled_halves(gen.permutation(u.n_units), gen)  # a split of the sample
        assert not set(groups[a]) & set(groups[b]) and sorted(np.concatenate([a, b])) == list(range(8))
        for half in u.shuffled_halves(u.resample(gen), gen):  # a split of a resample: whole copies of groups
            for g in set(groups[half]):
                counts = np.bincount(half, minlength=8)[groups == g]
                assert np.all(counts == counts[0])
    # a drawn group brings all its texts
    assert sorted(u.texts(np.array([3])).tolist()) == [3, 4, 5]
    plain = Units(5)
    assert plain.describe() == "texts" and np.array_equal(plain.texts(np.arange(5)), np.arange(5))
    with pytest.raises(ValueError, match="one label per text"):
        Units(5, groups=[0, 1])


def test_engine_states_its_interval_and_names_a_failing_resample():
    x = np.arange(10.0)

    def fails(u):
        if len(set(u.tolist())) < 10:
            raise ValueError("a repeat")
        return x[u].mean()

    with pytest.raises(ValueError, match=r"bootstrap resample 0: a repeat"):
        bootstrap(fails, 4.5, units=Units(10), rng=np.random.default_rng(0), n_resamples=5)
    with pytest.raises(ValueError, match="n_resamples must be >= 2"):
        bootstrap(lambda u: 0.0, 0.0, units=Units(10), rng=np.random.default_rng(0), n_resamples=1)
    res = bootstrap(lambda u: x[u].mean(), 4.5, units=Units(10), rng=np.random.default_rng(0), n_resamples=50)
    assert res.method == "centred percentile bootstrap over texts, 50 resamples"
    assert res.lower <= 4.5 <= res.upper and res.replicates.shape == (50,)


def _known_truth_setting():
    n, V = 5, 12
    mu = synthetic_distributions(n, V, rng=0, topic_concentration=1.0, bandwidth=0.3)
    line = np.abs(np.subtract.outer(np.arange(n), np.arange(n)))[np.triu_indices(n, 1)].astype(float)

    def stress(Q):  # scale-optimal stress of a fixed line configuration: a non-linear function of D
        d = np.sqrt(np.clip(Q, 0, 1))[np.triu_indices(n, 1)]
        a = (line @ d) / (line @ line)
        return float(np.sum((a * line - d) ** 2) / np.sum(d**2))

    return n, V, mu, Resolution(tuple(range(6)), 60, V), stress


@pytest.mark.slow
def test_coverage_of_a_distance_with_known_truth():
    """A distance is the square root of the estimated d_H^2: a non-linear statistic. 200 corpora from known
    distributions, the resolved estimator at a fixed resolution: the centred percentile interval (200 resamples)
    covers the distance at the true estimand at least as often as a true 95% would with probability 0.999."""
    n, V, mu, res, _ = _known_truth_setting()
    truth = np.sqrt(resolved_estimand(mu, res)[0, 4])
    gen, R, covered = np.random.default_rng(1), 200, 0
    for r in range(R):
        inc = SequenceIncidence.from_sequences(_sample(mu, 600, gen), n, V)
        b = Resolved(resolution=res).bootstrap(inc, rng=r, n_resamples=200,
                                               statistic=lambda Q: np.sqrt(max(Q[0, 4], 0.0)))
        covered += b.covers(truth)
    assert covered / R >= _lowest_acceptable(R), covered / R


def test_stress_of_an_estimated_geometry_is_biased_upward():
    """Stress is a non-linear function of D: even with an unbiased d_H^2, the noise in D adds stress. Over 200
    corpora the mean estimated stress exceeds the stress at the true estimand by more than 4 standard errors, so an
    interval of the stress (which describes its sampling spread) is not centred on the truth: what the report's
    noise-floor line states."""
    n, V, mu, res, stress = _known_truth_setting()
    truth = stress(resolved_estimand(mu, res))
    gen = np.random.default_rng(1)
    est = [stress(Resolved(resolution=res, n_splits=5).distances(
        SequenceIncidence.from_sequences(_sample(mu, 600, gen), n, V), rng=r).squared) for r in range(200)]
    assert np.mean(est) - truth > 4 * np.std(est, ddof=1) / np.sqrt(len(est)), (np.mean(est), truth)


def _nested_corpus(mu, n_groups, k, gen):
    """``n_groups`` source texts from ``mu``, each copied into ``k`` texts (the phrases of one sentence), and the
    group of every text."""
    sources = _sample(mu, n_groups, gen)
    return np.repeat(sources, k, axis=0), np.repeat(np.arange(n_groups), k)


@pytest.mark.slow
def test_groups_make_the_bootstrap_honest_on_nested_texts():
    """Each source text appears as 4 texts. Resampling texts treats them as independent: its intervals for a share
    are too narrow (coverage far below nominal); resampling the groups restores it. 300 replications."""
    mu = np.array([[0.3, 0.7]])
    R, G, k = 300, 60, 4
    gen = np.random.default_rng(0)
    coverage = {"texts": 0, "groups": 0}
    for r in range(R):
        texts, groups = _nested_corpus(mu, G, k, gen)
        x = (texts[:, 0] == 0).astype(float)
        for name, units in (("texts", Units(x.size)), ("groups", Units(x.size, groups=groups))):
            b = bootstrap(lambda u, units=units, x=x: x[units.texts(u)].mean(), x.mean(), units=units,
                          rng=np.random.default_rng(r), n_resamples=200)
            coverage[name] += b.covers(0.3)
    coverage = {key: v / R for key, v in coverage.items()}
    assert coverage["groups"] >= _lowest_acceptable(R), coverage
    # texts as units: the standard error is underestimated by sqrt(k) = 2, nominal 95% becomes about 68%
    assert coverage["texts"] < 0.85, coverage


@pytest.mark.slow
def test_estimator_bootstrap_by_groups_matches_the_sampling_spread():
    """The cross-fitted estimator on nested corpora: the bootstrap standard error over groups matches the spread
    of the estimate over independent corpora; over texts it is about half of it (4 copies per source)."""
    n, V, G, k, R = 4, 8, 150, 4, 40
    mu = synthetic_distributions(n, V, rng=2, topic_concentration=1.0, bandwidth=0.4)
    gen = np.random.default_rng(3)
    estimates, se = [], {"texts": [], "groups": []}
    for r in range(R):
        texts, groups = _nested_corpus(mu, G, k, gen)
        inc = SequenceIncidence.from_sequences(texts, n, V)
        for name, g in (("texts", None), ("groups", groups)):
            b = CrossFitted(n_splits=10).bootstrap(inc, rng=r, n_resamples=100, statistic=lambda Q: Q[0, 3],
                                                   groups=g)
            se[name].append(np.std(b.replicates, ddof=1))
        estimates.append(b.estimate)
    spread = np.std(estimates, ddof=1)
    ratio = {name: np.sqrt(np.mean(np.square(v))) / spread for name, v in se.items()}
    assert 0.75 < ratio["groups"] < 1.5, ratio
    assert ratio["texts"] < 0.75, ratio


@pytest.mark.slow
def test_decide_false_ranking_rate_on_nulls_equal_by_construction():
    """Two nulls whose truth is equal by construction, 100 replications each: (1) on a flat corpus (every position
    one distribution) the resolved d_H^2 of two pairs of positions, paired on the same resamples; (2) one corpus cut
    into two random halves, the mean squared distance on each (independent bootstraps). ``decide`` at 95% ranks
    falsely no more often than a true 5% rate would with probability 0.999."""
    from posgeom.geometry import flat_corpus
    from posgeom.inference import decide
    from posgeom.inference._bootstrap import BootstrapEstimate, difference

    n, V, R = 4, 10, 100
    mu = synthetic_distributions(n, V, rng=4, topic_concentration=1.0, bandwidth=0.3)
    gen = np.random.default_rng(5)
    res = Resolution(tuple(range(4)), 40, V)
    est = Resolved(resolution=res, n_splits=4)
    false = {"flat": 0, "halves": 0}
    iu = np.triu_indices(n, 1)
    for r in range(R):
        inc = SequenceIncidence.from_sequences(_sample(mu, 400, gen), n, V)
        flat = flat_corpus(inc, rng=r)
        b = est.bootstrap(flat, rng=r, n_resamples=100, statistic=lambda Q: np.array([Q[0, 1], Q[2, 3]]))
        false["flat"] += decide(difference(b, 0, 1)).ranked
        half = np.zeros(400, dtype=bool)
        half[gen.permutation(400)[:200]] = True
        X = _sample(mu, 400, gen)
        boots = [est.bootstrap(SequenceIncidence.from_sequences(X[m], n, V), rng=r, n_resamples=100,
                               statistic=lambda Q: Q[iu].mean()) for m in (half, ~half)]
        both = BootstrapEstimate(np.array([b.estimate for b in boots]), np.column_stack([b.replicates for b in boots]),
                                 0, 0, 0, 0, 0.95, "", "")
        false["halves"] += decide(difference(both, 0, 1)).ranked
    limit = stats.binom.ppf(0.999, R, 0.05)
    assert false["flat"] <= limit and false["halves"] <= limit, (false, limit)


def test_paired_joins_two_bootstraps_drawn_with_one_seed_into_one_paired_contrast():
    from posgeom.inference import difference, paired

    units, gen = Units(40), np.random.default_rng(0)
    x, y = gen.normal(size=40), gen.normal(size=(40, 2))
    a, b = (bootstrap(lambda d, v=v: v[d].mean(axis=0), v.mean(axis=0), units=units, rng=np.random.default_rng(3),
                      n_resamples=50) for v in (x, y))
    both = paired(a, b)
    assert both.estimate.shape == (3,) and both.replicates.shape == (50, 3) and both.lower[1:] == pytest.approx(b.lower)
    with pytest.raises(IndexError):  # a scalar has one component, index 0
        paired(a, b, index=1)
    d = difference(paired(b, b, index=1), 0, 1)  # an estimate paired with itself: exactly 0
    assert (d.estimate, d.lower, d.upper) == (0.0, 0.0, 0.0)
    one = paired(b, a, index=0)
    diff = difference(one, 0, 1)
    assert np.array_equal(diff.replicates, b.replicates[:, 0] - a.replicates)  # the same resamples, subtracted
    assert diff.estimate == pytest.approx(y[:, 0].mean() - x.mean())


def test_paired_refuses_bootstraps_that_cannot_share_resamples():
    from posgeom.inference import paired

    units = Units(30)
    boot = [bootstrap(lambda d: d.mean(), 1.0, units=units, rng=np.random.default_rng(0), n_resamples=n,
                      confidence=c) for n, c in ((20, 0.95), (30, 0.95), (20, 0.9))]
    with pytest.raises(ValueError, match="same resamples"):
        paired(boot[0], boot[1])
    with pytest.raises(ValueError, match="confidence"):
        paired(boot[0], boot[2])
