"""Tests of the cross-fitted (bias-corrected) Hellinger estimator and its bootstrap (posgeom.geometry.CrossFitted).

Validation is against corpora sampled from *known* positional distributions (the synthetic model of the book), so
every claim is checked against the truth, not against another estimate.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posgeom.geometry._crossfit as crossfit
from posgeom import hellinger_distances, synthetic_corpus, synthetic_distributions
from posgeom.corpus import SequenceIncidence
from posgeom.geometry import CorrectedDistances, CrossFitted
from posgeom.geometry._crossfit import corrected_distances, plugin_distances
from posgeom.inference import BootstrapEstimate


def _sample_independent(mu: np.ndarray, m: int, gen: np.random.Generator) -> np.ndarray:
    """``m`` sequences whose token at position ``i`` is drawn from ``mu_i``, independently across positions."""
    cdf = np.cumsum(mu, axis=1)
    cdf[:, -1] = 1.0
    u = gen.random((mu.shape[0], m))
    ids = np.stack([np.searchsorted(cdf[i], u[i], side="right") for i in range(mu.shape[0])])
    return np.minimum(ids, mu.shape[1] - 1).T


def _incidence(X, n, V, **kw):
    return SequenceIncidence.from_sequences(X, n, V, **kw)


# --------------------------------------------------------------------------------------------------------------
# The engine and the definition
# --------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["grid", "ragged"])
@pytest.mark.parametrize("all_dense", [True, False])
def test_cross_gram_matches_dense_reference(monkeypatch, layout, all_dense):
    """The vectorised cross-half Gram matrix (dense + sparse blocks, either token layout) equals the product of the
    dense square-root distributions of the two halves, for halves with repeated draws."""
    if not all_dense:
        monkeypatch.setattr(crossfit, "_ALL_DENSE_CELLS", 0)
    rng = np.random.default_rng(0)
    X = synthetic_corpus(300, 30, 200, rng=1)
    if layout == "ragged":  # most sequences of length 1: the padded position-major table would be wasteful
        lengths = np.ones(300, dtype=int)
        lengths[:40] = 30
        X = [x[:k] for x, k in zip(X, lengths)]
    inc = _incidence(X, 30, 200)
    fitter = crossfit.CrossFitter(inc, np.float64)
    assert (fitter.grid is None) == (layout == "ragged")
    assert (fitter.n_rare_cols == 0) == all_dense
    a, b = rng.integers(0, inc.n_sequences, 150), rng.integers(0, inc.n_sequences, 151)
    SA = inc.sqrt_distributions(np.bincount(a, minlength=inc.n_sequences))
    SB = inc.sqrt_distributions(np.bincount(b, minlength=inc.n_sequences))
    G, norm_a, norm_b = fitter.gram(a, b, norms=True)
    np.testing.assert_allclose(G, SA @ SB.T, atol=1e-13)
    np.testing.assert_allclose(norm_a, (SA * SA).sum(1), atol=1e-13)
    np.testing.assert_allclose(norm_b, (SB * SB).sum(1), atol=1e-13)
    fitter.contiguous = False  # the general totals (from the counts) agree with the length-based ones
    np.testing.assert_allclose(fitter.gram(a, b), G, atol=1e-13)
    np.testing.assert_allclose(crossfit.CrossFitter(inc, np.float32).gram(a, b), G, atol=1e-5)


def test_definition_cross_half_distance_minus_half_floors():
    """Per split, Q_ij = [d^2(A_i, B_j) + d^2(B_i, A_j)]/2 - d^2(A_i, B_i)/2 - d^2(A_j, B_j)/2, averaged over splits;
    floors are the root mean square split-half distances."""
    m, n, V = 101, 7, 40
    inc = _incidence(synthetic_corpus(m, n, V, rng=2), n, V)
    res = corrected_distances(inc, rng=np.random.default_rng(5), n_splits=3)
    gen = np.random.default_rng(5)
    Qs, floors = [], []
    for _ in range(3):
        perm = gen.permutation(m)
        SA = inc.sqrt_distributions(np.bincount(perm[: m // 2], minlength=m))
        SB = inc.sqrt_distributions(np.bincount(perm[m // 2:], minlength=m))
        na, nb = (SA * SA).sum(1), (SB * SB).sum(1)
        cross = np.clip(0.5 * (na[:, None] + nb[None, :]) - SA @ SB.T, 0.0, 1.0)  # d^2(A_i, B_j)
        f2 = np.diag(cross)
        Qs.append(0.5 * (cross + cross.T) - 0.5 * (f2[:, None] + f2[None, :]))
        floors.append(f2)
    Qs = np.array(Qs)
    np.testing.assert_allclose(res.squared, Qs.mean(0), atol=1e-12)
    np.testing.assert_allclose(res.mc_spread, Qs.std(0, ddof=1) / np.sqrt(3), atol=1e-12)
    np.testing.assert_allclose(res.floors, np.sqrt(np.mean(floors, axis=0)), atol=1e-12)
    assert isinstance(res, CorrectedDistances) and res.n_splits == 3
    D = res.distances
    assert np.array_equal(D, D.T) and np.all(np.diag(D) == 0) and np.all((D >= 0) & (D <= 1))
    np.testing.assert_allclose(D, np.sqrt(np.clip(res.squared, 0, 1)))
    iu = np.triu_indices(n, 1)
    assert res.fraction_clipped == pytest.approx(np.mean(res.squared[iu] < 0))
    # same rng, same numbers; another rng, other splits
    again = corrected_distances(inc, rng=np.random.default_rng(5), n_splits=3)
    assert np.array_equal(again.squared, res.squared)
    assert not np.array_equal(corrected_distances(inc, rng=6, n_splits=3).squared, res.squared)


def test_exact_expectation_with_within_sequence_dependence():
    """Proposition: E[Q_ij] = ||alpha_i - alpha_j||^2 / 2 with alpha_i = E sqrt(mu_i^half), whatever the dependence
    between the positions of a sequence. Two binary positions, strongly dependent (position 1 copies position 0 with
    probability 0.8), halves of h = 3 sequences: alpha is an exact binomial sum, the expectation a Monte Carlo mean
    over 20,000 corpora, checked to 4 standard errors. The full-sample plug-in, which pairs two tokens of one
    sequence, is visibly off the same target."""
    from math import comb

    p0, copy, h, reps = 0.3, 0.8, 3, 20_000
    p1 = copy * p0 + (1 - copy) * 0.5  # marginal of position 1
    gen = np.random.default_rng(0)
    x0 = (gen.random((reps, 2 * h)) < p0).astype(int)
    x1 = np.where(gen.random((reps, 2 * h)) < copy, x0, (gen.random((reps, 2 * h)) < 0.5).astype(int))

    def alpha(p):
        pmf = np.array([comb(h, k) * p**k * (1 - p) ** (h - k) for k in range(h + 1)])
        k = np.arange(h + 1)
        return np.array([pmf @ np.sqrt(k / h), pmf @ np.sqrt((h - k) / h)])  # E sqrt(hat p_1), E sqrt(hat p_0)

    target = 0.5 * np.sum((alpha(p0) - alpha(p1)) ** 2)
    # vectorised cross-fitted Q for one split (first h sequences = A) of every corpus
    def roots(x):
        frac = x.mean(axis=1)
        return np.sqrt(frac), np.sqrt(1 - frac)
    a0, a1 = roots(x0[:, :h]), roots(x1[:, :h])
    b0, b1 = roots(x0[:, h:]), roots(x1[:, h:])

    def dot(u, v):
        return u[0] * v[0] + u[1] * v[1]
    Q = 0.5 * (dot(a0, b0) + dot(a1, b1)) - 0.5 * (dot(a0, b1) + dot(a1, b0))
    se = Q.std(ddof=1) / np.sqrt(reps)
    assert abs(Q.mean() - target) < 4 * se, (Q.mean(), target, se)
    # the library computes the same Q for a corpus
    X = np.stack([x0[0], x1[0]], axis=1)
    inc = _incidence(X, 2, 2)
    fitter = crossfit.CrossFitter(inc)
    G = fitter.gram(np.arange(h), np.arange(h, 2 * h))
    assert crossfit.squared_from_gram(G)[0, 1] == pytest.approx(Q[0], abs=1e-12)


# --------------------------------------------------------------------------------------------------------------
# Validation against known truth
# --------------------------------------------------------------------------------------------------------------



@pytest.mark.slow
def test_remaining_bias_is_the_propositions_second_order_term():
    """On the d_H^2 scale (no clipping) the corrected estimates average to ||alpha_i - alpha_j||^2 / 2, with
    alpha_i = E sqrt(mu_i^half) computed exactly from binomial marginals: the Proposition, pair by pair, to 4
    standard errors. Their bias is bounded by sqrt(2) d ||e_i - e_j|| + ||e_i - e_j||^2 / 2 (e = sqrt(mu) - alpha)
    and is a fraction of the plug-in's."""
    from scipy.stats import binom

    n, V, m, reps = 8, 60, 300, 150
    mu = synthetic_distributions(n, V, rng=3, topic_concentration=1.0, bandwidth=0.3)
    d2 = hellinger_distances(mu) ** 2
    gen = np.random.default_rng(4)
    iu = np.triu_indices(n, 1)
    Q, P = [], []
    for _ in range(reps):
        inc = _incidence(_sample_independent(mu, m, gen), n, V)
        Q.append(corrected_distances(inc, rng=gen, n_splits=10).squared[iu])
        P.append(plugin_distances(inc)[iu] ** 2)
    Q, P = np.array(Q), np.array(P)
    h = m // 2
    k = np.arange(h + 1)
    alpha = np.einsum("ivk,k->iv", binom.pmf(k[None, None, :], h, mu[:, :, None]), np.sqrt(k / h))
    predicted = 0.5 * ((alpha[:, None, :] - alpha[None, :, :]) ** 2).sum(-1)[iu]
    se = Q.std(0, ddof=1) / np.sqrt(reps)
    assert np.all(np.abs(Q.mean(0) - predicted) <= 4 * se), np.c_[Q.mean(0), predicted, se][:5]
    e = np.sqrt(mu) - alpha
    de = np.linalg.norm(e[:, None, :] - e[None, :, :], axis=-1)[iu]
    bound = np.sqrt(2 * d2[iu]) * de + 0.5 * de**2
    bias_q, bias_p = predicted - d2[iu], P.mean(0) - d2[iu]
    assert np.all(np.abs(bias_q) <= bound + 1e-12)
    assert np.all(np.abs(Q.mean(0) - d2[iu]) < 0.5 * bias_p) and np.mean(np.abs(bias_q)) < 0.25 * np.mean(bias_p)


def test_estimators_with_a_dependent_sampler():
    """A sampler with within-sequence dependence: position 1 copies position 0, so both marginals are uniform (true
    distance 0). Perfect copying makes each half's two empirical distributions identical, so both estimators are
    exactly 0; with half the tokens copied, the plug-in's noise bias shrinks (the within-sequence covariance offsets
    it) while the cross-fitted estimate of d_H^2 stays centred on 0."""
    V = 30

    def copy_sampler(share):
        def sample(m, gen):
            x = gen.integers(0, V, m)
            y = np.where(gen.random(m) < share, x, gen.integers(0, V, m))
            return np.stack([x, y], axis=1)
        return sample

    copied = _incidence(copy_sampler(1.0)(500, np.random.default_rng(0)), 2, V)
    assert plugin_distances(copied)[0, 1] == 0 and corrected_distances(copied, rng=0, n_splits=3).squared[0, 1] == 0
    gen = np.random.default_rng(1)
    plug, corr = {}, {}
    for share in (0.0, 0.5):
        P, Q = [], []
        for _ in range(60):
            inc = _incidence(copy_sampler(share)(200, gen), 2, V)
            P.append(plugin_distances(inc)[0, 1] ** 2)
            Q.append(corrected_distances(inc, rng=gen, n_splits=10).squared[0, 1])
        plug[share], corr[share] = np.mean(P), (np.mean(Q), np.std(Q, ddof=1) / np.sqrt(len(Q)))
    assert plug[0.5] < 0.7 * plug[0.0]
    for share in (0.0, 0.5):
        assert abs(corr[share][0]) < 4 * corr[share][1], corr


# --------------------------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(m=st.integers(8, 400), n=st.integers(2, 8), V=st.integers(2, 60), conc=st.sampled_from([0.3, 1.0, 5.0]),
       seed=st.integers(0, 2**16))
def test_equal_distributions_give_zero_within_monte_carlo_error(m, n, V, conc, seed):
    """All positions share one mu (stationary corpus): E[Q_ij] = 0 exactly (Proposition, equal mu and equal sample
    sizes). Tolerance from the returned spread: ``sqrt(n_splits) * mc_spread`` is the per-split standard deviation
    of Q, which bounds the sampling standard deviation of the split average (measured ratio 1.0-1.05 on stationary
    corpora). The pair average must lie within 5 of the largest such deviation, every pair within 12."""
    X = synthetic_corpus(m, n, V, rng=seed, regime="stationary", topic_concentration=conc)
    inc = _incidence(X, n, V)
    res = corrected_distances(inc, rng=seed, n_splits=16)
    iu = np.triu_indices(n, 1)
    sd = np.sqrt(res.n_splits) * res.mc_spread[iu]
    if np.all(sd == 0):  # every split gives the same Q: no noise at all (e.g. a single token)
        assert np.allclose(res.squared[iu], 0, atol=1e-12)
        return
    assert abs(res.squared[iu].mean()) <= 5 * sd.max()
    assert np.all(np.abs(res.squared[iu]) <= 12 * np.maximum(sd, sd.max() / 4))
    # the distances: sqrt of the clipped estimate, so within sqrt of that tolerance
    assert np.all(res.distances[iu] <= np.sqrt(12 * np.maximum(sd, sd.max() / 4)))


def test_equal_distributions_unbiased_on_average():
    """Mean over 150 stationary corpora of the pair-averaged Q: within 4 standard errors of 0, the standard error
    taken from the returned spreads (per corpus sd <= sqrt(n_splits) * max mc_spread, see above)."""
    m, n, V, reps = 120, 6, 25, 150
    means, sds = [], []
    for r in range(reps):
        X = synthetic_corpus(m, n, V, rng=r, regime="stationary", topic_concentration=1.0)
        res = corrected_distances(_incidence(X, n, V), rng=r, n_splits=10)
        iu = np.triu_indices(n, 1)
        means.append(res.squared[iu].mean())
        sds.append(np.sqrt(res.n_splits) * res.mc_spread[iu].max())
    se = np.sqrt(np.mean(np.square(sds)) / reps)
    assert abs(np.mean(means)) < 4 * se, (np.mean(means), se)
    # while the plug-in is biased by about the floor: far outside
    X = synthetic_corpus(m, n, V, rng=0, regime="stationary", topic_concentration=1.0)
    assert plugin_distances(_incidence(X, n, V))[0, 1] ** 2 > 10 * se


@pytest.mark.slow
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 1000), regime=st.sampled_from(["smooth", "abrupt"]))
def test_corrected_and_plugin_agree_as_the_sample_grows(seed, regime):
    n, V = 6, 20
    mu = synthetic_distributions(n, V, rng=seed, regime=regime, topic_concentration=1.0)
    gen = np.random.default_rng(seed)
    gaps = []
    for m in (100, 1000, 10_000, 100_000):
        inc = _incidence(_sample_independent(mu, m, gen), n, V)
        gaps.append(np.abs(corrected_distances(inc, rng=seed, n_splits=4).distances - plugin_distances(inc)).max())
    assert gaps[-1] < 0.5 * gaps[0] and gaps[-1] < 0.02, gaps
    assert gaps[-1] < gaps[-2] < gaps[0], gaps


# --------------------------------------------------------------------------------------------------------------
# Bootstrap
# --------------------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_bootstrap_coverage_of_known_truth():
    """200 corpora from known distributions; nominal 95% intervals (500 resamples each) of two pair distances, a
    near pair and a far pair, cover the truth in at least 90% of the replications."""
    n, V, m, reps = 5, 20, 200, 200
    mu = synthetic_distributions(n, V, rng=0, topic_concentration=1.0, bandwidth=0.3)
    truth = hellinger_distances(mu)
    pairs = [(0, 1), (0, 4)]
    gen = np.random.default_rng(1)
    covered = np.zeros(len(pairs))
    mc = []
    for r in range(reps):
        inc = _incidence(_sample_independent(mu, m, gen), n, V)
        res = CrossFitted().bootstrap(inc, rng=r, n_resamples=500)
        for k, (i, j) in enumerate(pairs):
            covered[k] += res.lower[i, j] <= truth[i, j] <= res.upper[i, j]
        mc.append(res.upper_mc_error[0, 4])
    coverage = covered / reps
    assert np.all(coverage >= 0.90), dict(zip(pairs, coverage))
    assert np.median(mc) < 0.02  # the ends are stable to a few thousandths at 500 resamples


def _zipf_distributions(n, V, *, seed=0, amplitude=0.8):
    """Zipf(1.1) token frequencies reweighted smoothly with position (as in benchmarks/bench_corrected.py)."""
    gen = np.random.default_rng(seed)
    log_p = -1.1 * np.log(gen.permutation(V) + 2.7)
    phase, freq = gen.random(V), 2 * gen.random(V)
    L = np.stack([log_p + amplitude * np.sin(2 * np.pi * (phase + i * freq / n)) for i in range(n)])
    P = np.exp(L - L.max(axis=1, keepdims=True))
    return P / P.sum(axis=1, keepdims=True)


@pytest.mark.slow
def test_bootstrap_coverage_with_many_tokens_seen_once():
    """Zipfian distributions over 3,000 tokens, 400 sequences: most tokens seen at a position are seen once, as in
    real text. The centred intervals still cover (100 replications of 500 resamples; >= 88%, which a true coverage
    of 95% misses with probability about 0.001). Referring the replicates to the bootstrap world's truth (the
    full-sample plug-in) instead fails: there the corrected estimator is biased by the noise of the singletons."""
    n, V, m, reps = 5, 3000, 400, 100
    mu = _zipf_distributions(n, V)
    truth = hellinger_distances(mu)
    iu = np.triu_indices(n, 1)
    gen = np.random.default_rng(1)
    covered, covered_plugin_referred, boot_bias = [], [], []
    for r in range(reps):
        inc = _incidence(_sample_independent(mu, m, gen), n, V)
        res = CrossFitted().bootstrap(inc, rng=r, n_resamples=500, statistic=lambda Q: Q)  # squared scale
        lower, upper = np.sqrt(np.clip(res.lower, 0, 1)), np.sqrt(np.clip(res.upper, 0, 1))
        covered.append(((lower <= truth) & (truth <= upper))[iu])
        plugin_sq = plugin_distances(inc) ** 2  # the bootstrap world's truth
        errors = res.replicates - plugin_sq
        lo = np.sqrt(np.clip(res.point.squared + np.quantile(errors, 0.025, axis=0), 0, 1))
        hi = np.sqrt(np.clip(res.point.squared + np.quantile(errors, 0.975, axis=0), 0, 1))
        covered_plugin_referred.append(((lo <= truth) & (truth <= hi))[iu])
        boot_bias.append((res.replicates.mean(axis=0) - plugin_sq)[iu].mean())
    assert np.all(np.mean(covered, axis=0) >= 0.88), np.mean(covered, axis=0)
    assert np.mean(covered_plugin_referred) < 0.5
    assert np.mean(boot_bias) < -0.05


def test_bootstrap_resamples_split_at_the_level_of_draws():
    """Position 1 is a shifted copy of position 0 (total within-sequence dependence) and both have exactly the same
    empirical distribution: in the bootstrap world the truth is 0 and the replicates must average to 0. Splitting
    the *draws* keeps the halves independent and does so; keeping the copies of a sequence together (splitting the
    distinct sequences) makes the halves dependent and biases the replicates far below 0."""
    V = 6
    t = np.repeat(np.arange(V), 2)
    inc = _incidence(np.stack([t, (t + 1) % V], axis=1), 2, V)
    assert plugin_distances(inc)[0, 1] == 0.0
    s = CrossFitted().bootstrap(inc, rng=0, n_resamples=2000, statistic=lambda Q: Q[0, 1]).replicates
    assert abs(s.mean()) < 4 * s.std(ddof=1) / np.sqrt(s.size)
    # the alternative rule, for contrast
    fitter, gen, m = crossfit.CrossFitter(inc), np.random.default_rng(0), inc.n_sequences
    distinct_split = []
    for _ in range(2000):
        u, cnt = np.unique(gen.integers(0, m, m), return_counts=True)
        in_a = np.zeros(u.size, dtype=bool)
        in_a[gen.permutation(u.size)[: u.size // 2]] = True
        G = fitter.gram(np.repeat(u[in_a], cnt[in_a]), np.repeat(u[~in_a], cnt[~in_a]))
        distinct_split.append(crossfit.squared_from_gram(G)[0, 1])
    assert np.mean(distinct_split) < -0.1


def test_bootstrap_result_statistic_and_determinism():
    n, V = 6, 15
    inc = _incidence(synthetic_corpus(300, n, V, rng=5), n, V)
    res = CrossFitted().bootstrap(inc, rng=3, n_resamples=60)
    assert isinstance(res, BootstrapEstimate) and res.n_resamples == 60 and res.method.startswith("centred percentile")
    assert res.replicates.shape == (60, n, n) and np.all(res.replicates >= 0)  # distances, as the estimate
    assert np.array_equal(res.estimate, res.point.distances)
    assert np.all(res.lower <= res.upper) and np.all(res.lower >= 0) and np.all(res.upper <= 1)
    assert np.all(np.diag(res.lower) == 0) and np.all(np.diag(res.upper) == 0)
    assert np.all(res.lower_mc_error >= 0) and np.all(res.upper_mc_error >= 0)
    again = CrossFitted().bootstrap(inc, rng=3, n_resamples=60)
    assert np.array_equal(again.replicates, res.replicates) and np.array_equal(again.lower, res.lower)
    far = CrossFitted().bootstrap(inc, statistic=lambda Q: Q[0, n - 1], rng=3, n_resamples=60)
    assert far.replicates.shape == (60,) and isinstance(far.lower, float) and isinstance(far.estimate, float)
    assert np.sqrt(far.estimate) == pytest.approx(res.estimate[0, n - 1])
    vec = CrossFitted().bootstrap(inc, statistic=lambda Q: Q[0], rng=3, n_resamples=60)
    assert vec.lower.shape == (n,) and vec.replicates.shape == (60, n)


def test_monte_carlo_error_of_the_ends_matches_their_spread_over_seeds():
    """The order-statistic standard error of an interval end predicts how much the end moves with another rng."""
    n, V = 4, 12
    inc = _incidence(synthetic_corpus(150, n, V, rng=7), n, V)
    runs = [CrossFitted(n_splits=40).bootstrap(inc, statistic=lambda Q: np.sqrt(max(Q[0, 3], 0)), rng=s,
                                               n_resamples=500) for s in range(12)]
    lows = np.array([r.lower for r in runs])
    reported = np.mean([r.lower_mc_error for r in runs])
    observed = lows.std(ddof=1)
    assert 0.4 < reported / observed < 2.5, (reported, observed)


# --------------------------------------------------------------------------------------------------------------
# Bad inputs
# --------------------------------------------------------------------------------------------------------------


def test_bad_inputs():
    n, V = 4, 5
    X = synthetic_corpus(20, n, V, rng=0)
    inc = _incidence(X, n, V)
    with pytest.raises(TypeError, match="SequenceIncidence"):
        corrected_distances(X, rng=0)
    with pytest.raises(TypeError, match="SequenceIncidence"):
        CrossFitted().bootstrap(X, rng=0)
    with pytest.raises(TypeError, match="rng is required"):
        corrected_distances(inc, rng=None)
    with pytest.raises(TypeError):
        corrected_distances(inc)  # rng is keyword-only and required
    with pytest.raises(TypeError, match="n_splits must be an integer"):
        corrected_distances(inc, rng=0, n_splits=2.5)
    for bad in (0, 1, -3):
        with pytest.raises(ValueError, match="n_splits must be >= 2"):
            corrected_distances(inc, rng=0, n_splits=bad)
    with pytest.raises(ValueError, match="n_resamples must be >= 2"):
        CrossFitted().bootstrap(inc, rng=0, n_resamples=1)
    with pytest.raises(ValueError, match="confidence"):
        CrossFitted().bootstrap(inc, rng=0, confidence=1.5)
    with pytest.raises(TypeError, match="statistic must be a callable"):
        CrossFitted().bootstrap(inc, statistic=3.0, rng=0)
    three = _incidence(X[:3], n, V)
    with pytest.raises(ValueError, match="at least 4 sequences, got 3"):
        corrected_distances(three, rng=0)
    with pytest.raises(ValueError, match="at least 4 sequences"):
        CrossFitted().bootstrap(three, rng=0)
    # a position reached by one sequence only is empty in one half of every split
    sparse = _incidence([[1, 2, 3, 4]] + [[1, 2]] * 30, 4, 5)
    with pytest.raises(ValueError, match=r"split 0: position 2 receives no observation in half [AB].*only 1 of the 31 "
                                         r"sequences reach it.*fewer positions.*pad_id"):
        corrected_distances(sparse, rng=0)
    with pytest.raises(ValueError, match=r"split 0: position 2 receives no observation"):
        CrossFitted().bootstrap(sparse, rng=0)
    # in a bootstrap the message names the resample: 10 of 200 sequences reach positions 2 and 3, enough for the
    # splits of the sample, but some resample draws none of them into one half
    rare = _incidence([[1, 2, 3, 4]] * 10 + [[1, 2]] * 190, 4, 5)
    corrected_distances(rare, rng=2, n_splits=2)
    with pytest.raises(ValueError, match=r"bootstrap resample \d+: position 2 receives no observation"):
        CrossFitted(n_splits=2).bootstrap(rare, rng=2, n_resamples=2000)
