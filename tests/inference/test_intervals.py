import numpy as np
import pytest
from scipy import stats
from scipy.stats import binomtest

from posgeom.inference import Interval
from posgeom.inference._intervals import wilson_interval


@pytest.mark.parametrize("successes, n", [(0, 10), (3, 10), (10, 10), (412, 500), (1, 1)])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_wilson_interval_agrees_with_scipy(successes, n, confidence):
    ours = wilson_interval(successes, n, confidence=confidence)
    ref = binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    assert isinstance(ours, Interval) and ours.confidence == confidence
    assert ours.estimate == successes / n
    assert ours.lower == pytest.approx(ref.low, abs=1e-12)
    assert ours.upper == pytest.approx(ref.high, abs=1e-12)
    assert 0.0 <= ours.lower <= ours.estimate <= ours.upper <= 1.0


def test_wilson_interval_matches_the_closed_form_with_z_2576():
    # the formula Chapter 1 used before the interval moved into the package (z = 2.576, i.e. 99%)
    acc, n, z = 0.9, 500, 2.576
    centre = (acc + z**2 / (2 * n)) / (1 + z**2 / n)
    half = z * np.sqrt(acc * (1 - acc) / n + z**2 / (4 * n**2)) / (1 + z**2 / n)
    assert wilson_interval(450, 500, confidence=0.99).lower == pytest.approx(centre - half, abs=1e-4)


def test_wilson_interval_covers_at_its_nominal_rate():
    rng = np.random.default_rng(0)
    n, p, trials = 60, 0.3, 4000
    hits = rng.binomial(n, p, size=trials)
    covered = np.mean([not wilson_interval(int(k), n).excludes(p) for k in hits])
    assert 0.93 <= covered <= 0.97


def test_wilson_interval_rejects_bad_input():
    with pytest.raises(ValueError):
        wilson_interval(11, 10)
    with pytest.raises(ValueError):
        wilson_interval(-1, 10)
    with pytest.raises(ValueError):
        wilson_interval(0, 0)
    with pytest.raises(TypeError):
        wilson_interval(0.5, 10)
    with pytest.raises(ValueError):
        wilson_interval(5, 10, confidence=1.0)


def test_tost_power_matches_simulated_tost():
    from scipy import stats

    from posgeom.inference import tost_power

    rng = np.random.default_rng(1)
    q = stats.t.ppf(0.975, 4)
    for true in (0.0, 0.03, 0.05):
        x = rng.normal(true, 0.02, size=(40000, 5))
        half = q * x.std(axis=1, ddof=1) / np.sqrt(5)
        simulated = np.mean((x.mean(axis=1) - half > -0.05) & (x.mean(axis=1) + half < 0.05))
        assert tost_power(0.02, 5, 0.05, difference=true) == pytest.approx(simulated, abs=0.01)


def test_t_test_power_is_the_level_without_effect_and_matches_simulation():
    from scipy import stats

    from posgeom.inference import t_test_power

    assert t_test_power(0.0, 5) == pytest.approx(0.05, abs=1e-9)
    assert t_test_power(1.0, 5) < t_test_power(1.0, 10) < t_test_power(2.0, 10)
    # normal approximation for many seeds: 1 - Phi(1.96 - 0.28 * sqrt(100)) = 0.80
    assert t_test_power(0.28, 100) == pytest.approx(0.80, abs=0.01)
    # Monte Carlo: 4,000 designs of 12 seeds; the binomial SE of the rejection rate is below 0.008
    x = np.random.default_rng(0).normal(0.8, 1.0, size=(4000, 12))
    p = stats.ttest_1samp(x, 0.0, axis=1).pvalue
    assert abs(np.mean(p < 0.05) - t_test_power(0.8, 12)) < 0.03
    with pytest.raises(ValueError, match="n_seeds"):
        t_test_power(0.5, 1)



# -- power of t tests over seeds, and the exact sign-flip test --------------------------------------------------------

@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
@pytest.mark.parametrize("n_seeds", [2, 5, 12, 48])
def test_t_test_power_is_the_level_at_zero_and_finite_everywhere(alternative, n_seeds):
    from posgeom.inference import t_test_power

    assert t_test_power(0.0, n_seeds, alpha=0.01, alternative=alternative) == pytest.approx(0.01, abs=1e-12)
    values = [t_test_power(e, n_seeds, alternative=alternative) for e in np.linspace(-40, 40, 161)]
    assert np.all(np.isfinite(values)) and min(values) >= 0 and max(values) <= 1 + 1e-12


def test_t_test_power_matches_simulation():
    from posgeom.inference import t_test_power

    rng = np.random.default_rng(0)
    x = rng.normal(0.7, 1.0, size=(20000, 8))
    t = x.mean(axis=1) / (x.std(axis=1, ddof=1) / np.sqrt(8))
    rejections = (("two-sided", np.abs(t) > stats.t.ppf(0.975, 7)), ("greater", t > stats.t.ppf(0.95, 7)))
    for alternative, reject in rejections:
        # 20,000 simulated experiments: the binomial SD of the rate is below 0.0036; 4 SD is the criterion
        assert abs(reject.mean() - t_test_power(0.7, 8, alternative=alternative)) < 4 * 0.0036


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_detectable_effect_inverts_the_power(alternative):
    from posgeom.inference import detectable_effect, t_test_power

    for n_seeds in (3, 8, 20):
        e = detectable_effect(n_seeds, power=0.9, alpha=0.01, alternative=alternative)
        assert t_test_power(e, n_seeds, alpha=0.01, alternative=alternative) == pytest.approx(0.9, abs=1e-9)


def test_power_functions_reject_bad_options():
    from posgeom.inference import detectable_effect, t_test_power

    with pytest.raises(ValueError, match="alternative"):
        t_test_power(1.0, 5, alternative="less")
    with pytest.raises(ValueError, match="alpha"):
        t_test_power(1.0, 5, alpha=1.5)
    with pytest.raises(ValueError, match="power must lie"):
        detectable_effect(5, power=0.01)


def test_sign_flip_p_value_is_exact_and_symmetric():
    from posgeom.inference import sign_flip_p_value

    x = np.array([0.3, -0.1, 0.8, 0.5, 0.2])
    assert sign_flip_p_value(x) == sign_flip_p_value(-x)
    assert sign_flip_p_value(np.ones(10)) == pytest.approx(2 / 2**10)  # only the all-plus and all-minus patterns
    assert sign_flip_p_value(np.zeros(4)) == 1.0
    with pytest.raises(ValueError, match="1 to 20"):
        sign_flip_p_value(np.ones(21))
    with pytest.raises(ValueError, match="finite"):
        sign_flip_p_value([1.0, np.nan])


def test_sign_flip_p_value_enumerates_every_pattern_and_keeps_its_level():
    import itertools

    from posgeom.inference import sign_flip_p_value

    x = np.array([0.5, -0.2, 0.1])
    means = [abs(np.dot(s, x)) / 3 for s in itertools.product((1, -1), repeat=3)]
    assert sign_flip_p_value(x) == pytest.approx(np.mean(np.array(means) >= abs(x.mean()) - 1e-12))
    # under a symmetric null the exact test rejects at most alpha of the time; 2,000 draws: binomial SD 0.0049,
    # the criterion is alpha plus 3 SD
    rng = np.random.default_rng(1)
    ps = np.array([sign_flip_p_value(rng.normal(size=8)) for _ in range(2000)])
    assert np.mean(ps <= 0.05) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 2000)


def test_t_test_power_reaches_its_limits_for_huge_effects():
    from posgeom.inference import t_test_power

    for alternative in ("two-sided", "greater"):
        assert t_test_power(5e11, 5, alpha=0.005, alternative=alternative) == pytest.approx(1.0)
    assert t_test_power(-5e11, 5, alternative="greater") == pytest.approx(0.0, abs=1e-12)
    assert t_test_power(-5e11, 5) == pytest.approx(1.0)
