"""Statistical inference shared by every chapter: bootstrap results, rank correlation, permutation tests.

One implementation each, used by the monotonicity measures (:mod:`posgeom.encodings.monotonicity`), the noise of
the geometry (:mod:`posgeom.geometry.noise`) and the chapters' studies:

* :class:`BootstrapEstimate`: the one bootstrap result (estimate, replicates, interval, Monte Carlo error of its
  ends, method); :func:`percentile_bootstrap` forms one from replicates;
* :func:`rank`, :func:`pearson_rows`, :func:`spearman`: Spearman's rho as the Pearson correlation of average ranks,
  vectorised over rows;
* :class:`PermutationTest` and :func:`permutation_p_value`: a permutation null and its p-value,
  ``(1 + #{null at least as extreme}) / (1 + B)`` for Monte Carlo nulls (never 0), ``#{...} / B`` for exact ones;
* :class:`Interval`, :func:`t_interval` (a mean over seeds, ``n - 1`` degrees of freedom),
  :func:`wilson_interval` (a proportion, e.g. an accuracy over ``n`` test items) and
  :func:`spearman_interval` (Fisher z with the Bonett-Wright variance);
* :func:`spearman_power`: the smallest rank correlation a design detects, by simulation (a null result is an
  interval with a power analysis, not a p-value above 0.05).
* :func:`equivalence_test` (two one-sided t tests against a margin fixed in advance, with the design's power) and
  :func:`tost_power`: the other admissible form of a null result.

Pure numpy/scipy; the base layer of the package, below ``corpus``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats
from scipy.stats import rankdata

from ._validation import check_confidence, check_positive_int, check_rng

__all__ = [
    "PermutationTest",
    "rank",
    "pearson_rows",
    "spearman",
    "permutation_p_value",
    "Interval",
    "BootstrapEstimate",
    "percentile_bootstrap",
    "t_interval",
    "wilson_interval",
    "spearman_interval",
    "SpearmanPower",
    "spearman_power",
    "SlopeFit",
    "power_law_fit",
    "Equivalence",
    "tost_power",
    "equivalence_test",
]

_ALTERNATIVES = ("greater", "two-sided")


@dataclass(frozen=True)
class PermutationTest:
    """A statistic, its permutation null and the p-value.

    Attributes
    ----------
    statistic : float
        The statistic on the data as observed.
    null : ndarray
        The statistic under the permutations (all of them when ``exact``).
    p_value : float
        See :func:`permutation_p_value`.
    alternative : {"greater", "two-sided"}
        ``"greater"``: the null is at least the statistic; ``"two-sided"``: at least as large in absolute value.
    exact : bool
        Whether ``null`` enumerates every permutation.

    Examples
    --------
    >>> null = np.array([0.1, 0.5, 0.95])
    >>> test = PermutationTest(statistic=0.9, null=null, p_value=permutation_p_value(0.9, null),
    ...                        alternative="greater", exact=False)
    >>> test.p_value
    0.5
    """

    statistic: float
    null: np.ndarray
    p_value: float
    alternative: str
    exact: bool


def rank(a, axis: int = -1) -> np.ndarray:
    """Average ranks along ``axis`` (ties share the mean of their ranks), as in Spearman's rho.

    Parameters
    ----------
    a : array_like
        Values to rank.
    axis : int, default -1
        Axis along which to rank.

    Returns
    -------
    float ndarray
        Ranks ``1..m`` along ``axis``, same shape as ``a``.

    Examples
    --------
    >>> rank([10, 30, 20, 20])
    array([1. , 4. , 2.5, 2.5])
    """
    return rankdata(np.asarray(a, dtype=float), axis=axis)


def pearson_rows(a, b) -> np.ndarray:
    """Pearson correlation of matching rows (last axis), broadcasting; NaN where a row is constant.

    The caller decides what a constant row means (see :func:`spearman`, which raises).

    Parameters
    ----------
    a, b : array_like
        Arrays whose last axes have the same length and whose leading axes broadcast.

    Returns
    -------
    float ndarray
        Correlation of each pair of rows, shape of the broadcast leading axes; NaN for a constant row.

    Examples
    --------
    >>> pearson_rows([[1, 2, 3], [1, 2, 3]], [[1, 2, 4], [3, 2, 1]]).round(3)
    array([ 0.982, -1.   ])
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    a = a - a.mean(axis=-1, keepdims=True)
    b = b - b.mean(axis=-1, keepdims=True)
    den = np.sqrt((a * a).sum(axis=-1) * (b * b).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 1e-12, (a * b).sum(axis=-1) / np.where(den > 0, den, 1.0), np.nan)


def spearman(x, y) -> float:
    """Spearman's rank correlation (Pearson correlation of average ranks) of two equal-length vectors.

    Parameters
    ----------
    x, y : (m,) array_like
        Finite values, ``m >= 2``.

    Returns
    -------
    float
        In ``[-1, 1]``.

    Raises
    ------
    ValueError
        Different shapes, fewer than 2 values, non-finite values, or a constant vector (the correlation is
        undefined; never returned as NaN).

    Examples
    --------
    >>> spearman([1, 2, 3, 4], [10, 20, 40, 30])
    0.8
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.ndim != 1 or x.shape != y.shape or x.size < 2:
        raise ValueError(f"x and y must be 1-D of the same length >= 2, got shapes {x.shape} and {y.shape}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("x and y must be finite")
    r = float(pearson_rows(rank(x), rank(y)))
    if np.isnan(r):
        raise ValueError("one of the vectors is constant: the rank correlation is undefined")
    return round(r, 15)


def permutation_p_value(statistic: float, null, *, alternative: str = "greater", exact: bool = False) -> float:
    """The p-value of ``statistic`` against a permutation ``null``.

    Parameters
    ----------
    statistic : float
        The statistic on the data as observed.
    null : (B,) array_like
        The statistic on ``B`` permutations: random ones (Monte Carlo) or all of them (``exact=True``).
    alternative : {"greater", "two-sided"}, default "greater"
        ``"greater"`` counts null values ``>= statistic``; ``"two-sided"`` counts ``|null| >= |statistic|``.
    exact : bool, default False
        Exact: ``#{extreme} / B``. Monte Carlo: ``(1 + #{extreme}) / (1 + B)``, which counts the observed
        arrangement as one of the permutations and so is never 0 and is a valid p-value for finite ``B``.

    Returns
    -------
    float
        The p-value, in ``(0, 1]`` for Monte Carlo nulls and ``[0, 1]`` for exact ones.

    Raises
    ------
    ValueError
        Unknown ``alternative`` or an empty or non-finite ``null``.

    Examples
    --------
    >>> permutation_p_value(0.9, [0.1, 0.5, 0.95])
    0.5
    """
    if alternative not in _ALTERNATIVES:
        raise ValueError(f"alternative must be one of {_ALTERNATIVES}, got {alternative!r}")
    null = np.asarray(null, dtype=float).ravel()
    if null.size == 0 or not np.all(np.isfinite(null)):
        raise ValueError("null must be a non-empty array of finite values")
    tol = 1e-12
    if alternative == "greater":
        hits = int(np.count_nonzero(null >= statistic - tol))
    else:
        hits = int(np.count_nonzero(np.abs(null) >= abs(statistic) - tol))
    return hits / null.size if exact else (1 + hits) / (1 + null.size)


@dataclass(frozen=True)
class Interval:
    """A point estimate with a two-sided confidence interval.

    Attributes
    ----------
    estimate, lower, upper : float
    confidence : float
        Nominal coverage, e.g. 0.95.

    Examples
    --------
    >>> Interval(0.5, 0.2, 0.8, 0.95).excludes(0.0)
    True
    """

    estimate: float
    lower: float
    upper: float
    confidence: float

    def excludes(self, value: float) -> bool:
        """Whether ``value`` lies outside the interval.

        Parameters
        ----------
        value : float

        Returns
        -------
        bool

        Examples
        --------
        >>> Interval(0.5, 0.2, 0.8, 0.95).excludes(0.3)
        False
        """
        return bool(value < self.lower or value > self.upper)


@dataclass(frozen=True)
class BootstrapEstimate:
    """A bootstrap interval: the estimate, its replicates, the interval, and the Monte Carlo error of its ends.

    Attributes
    ----------
    estimate : float or ndarray
        The statistic on the whole sample.
    replicates : ndarray, shape ``(n_resamples, *shape)``
        The statistic on each resample (after any adjustment the method states).
    lower, upper : float or ndarray
        Ends of the interval.
    lower_mc_error, upper_mc_error : float or ndarray
        Monte Carlo standard errors of the ends: how much they would move with another seed.
    confidence : float
        Nominal coverage.
    method : str
        How the interval was formed.
    label : str
        What was resampled (e.g. the estimator and its estimand).
    point : object, optional
        The full-sample estimate behind ``estimate`` when it is the output of an estimator (e.g. the
        :class:`~posgeom.geometry.estimators.CorrectedDistances` of the cross-fitted bootstrap).

    Examples
    --------
    >>> r = BootstrapEstimate(0.5, np.zeros(3), 0.4, 0.6, 0.01, 0.01, 0.95, "percentile", "toy")
    >>> r.interval
    Interval(estimate=0.5, lower=0.4, upper=0.6, confidence=0.95)
    """

    estimate: float | np.ndarray
    replicates: np.ndarray
    lower: float | np.ndarray
    upper: float | np.ndarray
    lower_mc_error: float | np.ndarray
    upper_mc_error: float | np.ndarray
    confidence: float
    method: str
    label: str
    point: object = None

    @property
    def n_resamples(self) -> int:
        """Number of resamples."""
        return int(np.shape(self.replicates)[0])

    @property
    def bias(self):
        """Mean replicate minus the estimate: the bootstrap estimate of the statistic's bias."""
        return np.mean(self.replicates, axis=0) - self.estimate

    @property
    def standard_error(self):
        """Standard deviation of the replicates (ddof=1)."""
        return np.std(self.replicates, axis=0, ddof=1)

    @property
    def basic_interval(self):
        """The basic (reverse-percentile) interval ``(2 estimate - upper, 2 estimate - lower)``.

        It corrects a percentile interval for a shift of the replicates away from the estimate.
        """
        return 2 * np.asarray(self.estimate) - self.upper, 2 * np.asarray(self.estimate) - self.lower

    @property
    def interval(self) -> Interval:
        """The interval of a scalar statistic as an :class:`Interval` (raises for array statistics).

        Returns
        -------
        Interval

        Examples
        --------
        >>> BootstrapEstimate(1.0, np.zeros(2), 0.0, 2.0, 0.0, 0.0, 0.9, "percentile", "toy").interval.upper
        2.0
        """
        if np.ndim(self.estimate) != 0:
            raise ValueError("interval is defined for a scalar statistic; index lower and upper for arrays")
        return Interval(float(self.estimate), float(self.lower), float(self.upper), float(self.confidence))

    def covers(self, value):
        """Whether each interval contains ``value`` (elementwise for array statistics).

        Parameters
        ----------
        value : float or ndarray

        Returns
        -------
        bool or ndarray of bool

        Examples
        --------
        >>> BootstrapEstimate(1.0, np.zeros(2), 0.0, 2.0, 0.0, 0.0, 0.9, "percentile", "toy").covers(0.0)
        True
        """
        out = (np.asarray(self.lower) <= value) & (np.asarray(value) <= np.asarray(self.upper))
        return bool(out) if np.ndim(out) == 0 else out


def percentile_bootstrap(estimate, replicates, *, confidence: float = 0.95, label: str = "",
                         point=None) -> BootstrapEstimate:
    """Percentile interval of bootstrap replicates, with the Monte Carlo error of its ends.

    Parameters
    ----------
    estimate : float or ndarray
        The statistic on the whole sample.
    replicates : ndarray, shape ``(n_resamples, *shape)``
    confidence : float, default 0.95
    label : str, optional
        What was resampled.
    point : object, optional
        Stored as :attr:`BootstrapEstimate.point`.

    Returns
    -------
    BootstrapEstimate
        Ends at the ``(1 -+ confidence)/2`` quantiles of the replicates. The Monte Carlo error of an end is half
        the distance between the order statistics one binomial standard deviation (``sqrt(B p (1 - p))`` ranks)
        either side of it: a density-free standard error of a sample quantile.

    Raises
    ------
    ValueError
        Fewer than 2 replicates, or ``confidence`` outside ``(0, 1)``.

    Examples
    --------
    >>> r = percentile_bootstrap(0.5, np.linspace(0, 1, 101), confidence=0.9)
    >>> round(float(r.lower), 6), round(float(r.upper), 6), r.n_resamples
    (0.05, 0.95, 101)
    """
    confidence = check_confidence(confidence)
    reps = np.asarray(replicates)
    B = reps.shape[0] if reps.ndim else 0
    if B < 2:
        raise ValueError(f"a bootstrap interval needs at least 2 replicates, got {B}")
    ends, errors = [], []
    for p in ((1 - confidence) / 2, (1 + confidence) / 2):
        ends.append(np.quantile(reps, p, axis=0))
        s = np.sqrt(B * p * (1 - p))
        lo, hi = max(int(np.floor((B - 1) * p - s)), 0), min(int(np.ceil((B - 1) * p + s)), B - 1)
        part = np.partition(reps, [lo, hi], axis=0)
        errors.append(0.5 * np.abs(part[hi] - part[lo]))

    def scalar(x):
        return float(x) if np.ndim(x) == 0 else x

    return BootstrapEstimate(estimate=scalar(np.asarray(estimate, dtype=np.float64)) if np.ndim(estimate) == 0
                             else estimate, replicates=reps, lower=scalar(ends[0]), upper=scalar(ends[1]),
                             lower_mc_error=scalar(errors[0]), upper_mc_error=scalar(errors[1]),
                             confidence=confidence, method="percentile bootstrap", label=label, point=point)


def t_interval(x, *, confidence: float = 0.95) -> Interval:
    """Student-t interval for a mean: ``mean +- t_{1-a/2, n-1} s / sqrt(n)`` (``n - 1`` degrees of freedom).

    Parameters
    ----------
    x : (n,) array with n >= 2
    confidence : float, default 0.95

    Returns
    -------
    Interval

    Examples
    --------
    >>> r = t_interval([1.0, 2.0, 3.0])
    >>> round(r.estimate, 3), round(r.upper - r.estimate, 3)  # t_{0.975, 2} = 4.303, s / sqrt(3) = 0.577
    (2.0, 2.484)
    """
    confidence = check_confidence(confidence)
    x = np.asarray(x, dtype=float)
    if x.ndim != 1 or x.size < 2 or not np.all(np.isfinite(x)):
        raise ValueError("x must be a finite 1-D array with at least 2 values")
    m, se = float(x.mean()), float(x.std(ddof=1) / np.sqrt(x.size))
    half = float(stats.t.ppf((1 + confidence) / 2, x.size - 1)) * se
    return Interval(m, m - half, m + half, confidence)


def wilson_interval(successes: int, n: int, *, confidence: float = 0.95) -> Interval:
    """Wilson score interval for a binomial proportion ``successes / n`` (e.g. a test accuracy).

    With ``p = successes / n`` and ``z = z_{(1 + confidence) / 2}`` the interval is
    ``(p + z^2 / (2n) +- z sqrt(p (1 - p) / n + z^2 / (4 n^2))) / (1 + z^2 / n)`` (Wilson 1927, JASA 22:209-212).
    Unlike the normal (Wald) interval it stays inside ``[0, 1]`` and does not collapse to a point at ``p = 0`` or
    ``p = 1``. It assumes ``n`` independent trials.

    Parameters
    ----------
    successes : int
        Number of successes, ``0 <= successes <= n``.
    n : int
        Number of trials, ``n >= 1``.
    confidence : float, default 0.95
        Two-sided coverage, in ``(0, 1)``.

    Returns
    -------
    Interval
        ``estimate = successes / n`` and the Wilson bounds, clipped to ``[0, 1]``.

    Raises
    ------
    TypeError
        If ``successes`` or ``n`` is not an integer.
    ValueError
        If ``n < 1``, ``successes`` is outside ``[0, n]`` or ``confidence`` is outside ``(0, 1)``.

    Examples
    --------
    >>> r = wilson_interval(8, 10)
    >>> r.estimate, round(r.lower, 3), round(r.upper, 3)
    (0.8, 0.49, 0.943)
    >>> wilson_interval(0, 20).lower, round(wilson_interval(0, 20).upper, 3)
    (0.0, 0.161)
    """
    confidence = check_confidence(confidence)
    n = check_positive_int(n, "n")
    successes = check_positive_int(successes, "successes", minimum=0)
    if successes > n:
        raise ValueError(f"successes must lie in [0, n] = [0, {n}], got {successes}")
    p = successes / n
    z = float(stats.norm.ppf((1 + confidence) / 2))
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # the bounds are exactly 0 at no success and exactly 1 at no failure; spare them the rounding
    lower = 0.0 if successes == 0 else max(0.0, centre - half)
    upper = 1.0 if successes == n else min(1.0, centre + half)
    return Interval(p, lower, upper, confidence)


def spearman_interval(x, y, *, confidence: float = 0.95) -> Interval:
    """Spearman's rank correlation with a Fisher-z interval using the Bonett-Wright variance.

    ``z = atanh(r_s)``, standard error ``sqrt((1 + r_s^2 / 2) / (n - 3))`` (Bonett & Wright 2000, Psychometrika
    65:23-28), interval ``tanh(z +- z_{1-a/2} se)``. Ties get average ranks.

    Parameters
    ----------
    x, y : (n,) arrays, n >= 4
    confidence : float, default 0.95

    Returns
    -------
    Interval

    Examples
    --------
    >>> r = spearman_interval(np.arange(10.0), np.arange(10.0) ** 2)
    >>> r.estimate, r.lower > 0.5
    (1.0, True)
    """
    confidence = check_confidence(confidence)
    x, y = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    if x.shape != y.shape or x.size < 4:
        raise ValueError(f"x and y must have the same size >= 4, got {x.size} and {y.size}")
    r = float(spearman(x, y))
    if not np.isfinite(r):
        raise ValueError("Spearman's correlation is undefined (a constant variable)")
    return Interval(r, *_bw_bounds(r, x.size, confidence), confidence)


def _bw_bounds(r, n, confidence):
    z = math.atanh(min(max(r, -0.999999), 0.999999))
    se = math.sqrt((1 + r * r / 2) / (n - 3))
    q = float(stats.norm.ppf((1 + confidence) / 2))
    return math.tanh(z - q * se), math.tanh(z + q * se)


@dataclass(frozen=True)
class SpearmanPower:
    """Result of :func:`spearman_power`.

    Attributes
    ----------
    n : int
        Sample size of the design (pairs).
    alpha : float
        Two-sided level.
    critical : float
        ``|r_s|`` above which the test rejects: the ``1 - alpha`` quantile of ``|r_s|`` simulated at rho = 0.
    rho : (G,) array
        Bivariate-normal correlations of the grid.
    rho_s : (G,) array
        The matching population Spearman correlations ``(6 / pi) arcsin(rho / 2)``.
    power : (G,) array
        Share of simulated designs that reject.
    n_sim : int
        Simulated samples for the null quantile and for each grid point.

    Examples
    --------
    >>> rho = np.array([0.0, 0.5, 0.9])
    >>> pw = SpearmanPower(n=10, alpha=0.05, critical=0.65, rho=rho, rho_s=(6 / np.pi) * np.arcsin(rho / 2),
    ...                    power=np.array([0.05, 0.4, 0.95]), n_sim=1000)
    >>> round(pw.detectable(0.8), 3)
    0.78
    """

    n: int
    alpha: float
    critical: float
    rho: np.ndarray
    rho_s: np.ndarray
    power: np.ndarray
    n_sim: int

    def detectable(self, target: float = 0.8) -> float:
        """Smallest population Spearman correlation detected with probability ``target``.

        Linear interpolation of ``rho_s`` against ``power`` between the last grid point below ``target`` and the
        first at or above it.

        Parameters
        ----------
        target : float, default 0.8
            The required power (probability of rejecting).

        Returns
        -------
        float
            The detectable population Spearman correlation; ``rho_s[0]`` if the first grid point already reaches
            ``target``, ``nan`` if the grid never reaches it.

        Examples
        --------
        >>> rho = np.array([0.0, 0.5, 0.9])
        >>> pw = SpearmanPower(n=10, alpha=0.05, critical=0.65, rho=rho, rho_s=(6 / np.pi) * np.arcsin(rho / 2),
        ...                    power=np.array([0.05, 0.4, 0.95]), n_sim=1000)
        >>> round(pw.detectable(0.8), 3), pw.detectable(0.01), pw.detectable(0.99)
        (0.78, 0.0, nan)
        """
        above = np.flatnonzero(self.power >= target)
        if above.size == 0:
            return float("nan")
        k = int(above[0])
        if k == 0:
            return float(self.rho_s[0])
        p0, p1 = self.power[k - 1], self.power[k]
        w = (target - p0) / (p1 - p0)
        return float(self.rho_s[k - 1] + w * (self.rho_s[k] - self.rho_s[k - 1]))


def spearman_power(n: int, *, rng, alpha: float = 0.05, rho=None, n_sim: int = 4000) -> SpearmanPower:
    """Power of the two-sided Spearman test on ``n`` pairs, by simulation under bivariate normal data.

    The test rejects when ``|r_s|`` exceeds the ``1 - alpha`` quantile of its null distribution, itself simulated
    (``n_sim`` independent samples of size ``n``); the power at correlation ``rho`` is the rejection rate over
    ``n_sim`` samples of size ``n`` from a bivariate normal law with correlation ``rho``.

    Parameters
    ----------
    n : int, >= 4
    rng : int or numpy.random.Generator
    alpha : float, default 0.05
    rho : sequence of float in [0, 1), optional
        Grid (default 0, 0.05, ..., 0.95).
    n_sim : int, default 4000

    Returns
    -------
    SpearmanPower

    Examples
    --------
    >>> pw = spearman_power(25, rng=0, n_sim=500)
    >>> bool(abs(pw.power[0] - 0.05) < 0.04), bool(0.3 < pw.detectable(0.8) < 0.8)
    (True, True)
    """
    rng = check_rng(rng)
    n = check_positive_int(n, "n", minimum=4)
    n_sim = check_positive_int(n_sim, "n_sim", minimum=100)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    grid = np.arange(0.0, 0.951, 0.05) if rho is None else np.asarray(rho, dtype=float)
    if grid.ndim != 1 or np.any((grid < 0) | (grid >= 1)):
        raise ValueError("rho must be a 1-D grid in [0, 1)")

    def draw(r):
        x = rng.standard_normal((n_sim, n))
        y = r * x + math.sqrt(1 - r * r) * rng.standard_normal((n_sim, n))
        return np.abs(pearson_rows(rank(x), rank(y)))

    critical = float(np.quantile(draw(0.0), 1 - alpha))
    power = np.array([np.mean(draw(r) > critical) for r in grid])
    return SpearmanPower(n=n, alpha=float(alpha), critical=critical, rho=grid,
                         rho_s=(6 / np.pi) * np.arcsin(grid / 2), power=power, n_sim=n_sim)


@dataclass(frozen=True)
class SlopeFit:
    """A least-squares slope with its t interval, from :func:`power_law_fit`.

    Attributes
    ----------
    slope, lower, upper : float
        The slope and its two-sided interval, ``slope -+ t_{(1+confidence)/2, n-2} * stderr``.
    intercept : float
    n : int
        Number of points (``n - 2`` degrees of freedom).
    confidence : float

    Examples
    --------
    >>> fit = power_law_fit([1, 2, 4, 8], [1.0, 0.5, 0.26, 0.125])
    >>> round(fit.slope, 2), fit.contains(-1.0)
    (-0.99, True)
    """

    slope: float
    lower: float
    upper: float
    intercept: float
    n: int
    confidence: float

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in the interval.

        Parameters
        ----------
        value : float

        Returns
        -------
        bool

        Examples
        --------
        >>> SlopeFit(-0.5, -0.6, -0.4, 0.0, 10, 0.95).contains(-1.0)
        False
        """
        return bool(self.lower <= value <= self.upper)


def power_law_fit(x, y, *, confidence: float = 0.95) -> SlopeFit:
    """The exponent of a power law ``y ~ c x^b``: the OLS slope of ``log y`` on ``log x`` with its t interval.

    Parameters
    ----------
    x, y : (n,) array_like
        Positive values, ``n >= 3`` (the interval has ``n - 2`` degrees of freedom); repeated ``x`` (several seeds
        per width) are fine.
    confidence : float, default 0.95

    Returns
    -------
    SlopeFit

    Raises
    ------
    ValueError
        Fewer than 3 points, different lengths, or non-positive or non-finite values.

    Examples
    --------
    >>> fit = power_law_fit([64, 128, 256, 512], [0.125, 0.088, 0.0626, 0.0442])
    >>> round(fit.slope, 2), fit.contains(-0.5)
    (-0.5, True)
    """
    confidence = check_confidence(confidence)
    x, y = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    if x.shape != y.shape or x.size < 3:
        raise ValueError(f"x and y must have the same length >= 3, got {x.size} and {y.size}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y)) and np.all(x > 0) and np.all(y > 0)):
        raise ValueError("a power-law fit needs finite, positive x and y (it works on their logarithms)")
    fit = stats.linregress(np.log(x), np.log(y))
    half = float(stats.t.ppf((1 + confidence) / 2, x.size - 2)) * float(fit.stderr)
    return SlopeFit(float(fit.slope), float(fit.slope) - half, float(fit.slope) + half, float(fit.intercept),
                    int(x.size), confidence)


@dataclass(frozen=True)
class Equivalence:
    """Result of :func:`equivalence_test`: two one-sided tests (TOST) of a mean against ``+-margin``.

    Attributes
    ----------
    estimate, lower, upper : float
        The mean and its two-sided Student-t interval at level ``confidence`` (``n - 1`` degrees of freedom).
    margin : float
        The equivalence margin, fixed before looking at the data.
    confidence : float
        Level of the interval; each one-sided test has level ``(1 - confidence) / 2``.
    n : int
        Number of (paired) differences.
    sd : float
        Their sample standard deviation (``ddof=1``).
    p_value : float
        TOST p-value, the larger of the two one-sided p-values; ``p_value < (1 - confidence) / 2`` exactly when
        the interval lies inside ``(-margin, margin)``.
    equivalent : bool
        Whether the interval lies inside ``(-margin, margin)``.
    power : float
        Probability that the TOST declares equivalence when the true mean is 0 and the true SD is ``sd``.
    power_at_margin : float
        Probability that the two-sided t test at level ``1 - confidence`` detects a true mean of ``margin`` when
        the true SD is ``sd``: how likely the design was to see a gap as large as the margin.

    Examples
    --------
    >>> r = equivalence_test([0.01, -0.02, 0.0, 0.015, -0.005], margin=0.05)
    >>> r.equivalent, round(r.upper, 3), r.power > 0.9
    (True, 0.017, True)
    """

    estimate: float
    lower: float
    upper: float
    margin: float
    confidence: float
    n: int
    sd: float
    p_value: float
    equivalent: bool
    power: float
    power_at_margin: float


def tost_power(sd: float, n: int, margin: float, *, difference: float = 0.0, confidence: float = 0.95) -> float:
    """Exact power of the t-based TOST of :func:`equivalence_test` for a normal sample.

    With ``se = sd / sqrt(n)``, ``q = t_{(1+confidence)/2, n-1}`` and the sample SD ``s``, equivalence is declared
    when ``|mean| < margin - q s / sqrt(n)``. Conditioning on ``s`` (``(n-1) s^2 / sd^2 ~ chi2_{n-1}``, independent
    of the mean) the probability is a difference of two normal CDFs; it is integrated over the chi-square law.

    Parameters
    ----------
    sd : float, > 0
        The true standard deviation of one difference.
    n : int, >= 2
        Number of differences.
    margin : float, > 0
    difference : float, default 0.0
        The true mean difference.
    confidence : float, default 0.95

    Returns
    -------
    float
        The probability of declaring equivalence.

    Examples
    --------
    >>> round(tost_power(0.02, 5, 0.05), 3), round(tost_power(0.02, 5, 0.05, difference=0.05), 3)
    (0.964, 0.025)
    """
    from scipy import integrate

    confidence = check_confidence(confidence)
    n = check_positive_int(n, "n", minimum=2)
    if not (sd > 0 and margin > 0 and math.isfinite(sd) and math.isfinite(margin)):
        raise ValueError(f"sd and margin must be finite and positive, got {sd!r} and {margin!r}")
    se, df = sd / math.sqrt(n), n - 1
    q = float(stats.t.ppf((1 + confidence) / 2, df))
    k, theta = margin / se, difference / se
    v_max = df * (k / q) ** 2  # beyond it margin - q s / sqrt(n) <= 0: never equivalent

    def integrand(v):
        h = k - q * math.sqrt(v / df)
        return (stats.norm.cdf(h - theta) - stats.norm.cdf(-h - theta)) * stats.chi2.pdf(v, df)

    value, _ = integrate.quad(integrand, 0.0, v_max, limit=200)
    return float(min(max(value, 0.0), 1.0))


def equivalence_test(x, margin: float, *, confidence: float = 0.95) -> Equivalence:
    """Two one-sided t tests (TOST): is the mean of ``x`` (e.g. paired differences over seeds) within ``+-margin``?

    Equivalence is declared when the two-sided Student-t interval at level ``confidence`` (``n - 1`` degrees of
    freedom) lies inside ``(-margin, margin)``, i.e. both one-sided tests ``H0: mean <= -margin`` and
    ``H0: mean >= margin`` reject at level ``(1 - confidence) / 2`` (Schuirmann 1987, J. Pharmacokin. Biopharm.
    15:657-680). A non-rejection of "no difference" is not evidence of no difference; this is. The margin must be
    fixed before the data are seen. The two powers are computed at the observed SD (a plug-in): :attr:`power`
    (declaring equivalence at a true mean of 0, :func:`tost_power`) and :attr:`power_at_margin` (the two-sided
    t test detecting a true mean of ``margin``, noncentral t).

    Parameters
    ----------
    x : (n,) array with n >= 2
        The differences, one per independent replicate (seed).
    margin : float, > 0
    confidence : float, default 0.95

    Returns
    -------
    Equivalence

    Raises
    ------
    ValueError
        Fewer than 2 finite values, a non-positive margin, or ``confidence`` outside ``(0, 1)``.

    Examples
    --------
    >>> r = equivalence_test([0.01, -0.02, 0.0, 0.015, -0.005], margin=0.05)
    >>> r.equivalent, round(r.p_value, 4), round(r.power_at_margin, 3)
    (True, 0.0006, 1.0)
    >>> equivalence_test([0.08, 0.11, 0.09, 0.1, 0.12], margin=0.05).equivalent
    False
    """
    interval = t_interval(x, confidence=confidence)
    x = np.asarray(x, dtype=float)
    if not (margin > 0 and math.isfinite(margin)):
        raise ValueError(f"margin must be finite and positive, got {margin!r}")
    n, sd = int(x.size), float(x.std(ddof=1))
    df, m = n - 1, interval.estimate
    if sd == 0:  # a degenerate sample: the interval is the point itself
        p_value = 0.0 if abs(m) < margin else 1.0
        power = power_at_margin = 1.0
    else:
        se = sd / math.sqrt(n)
        p_value = float(max(stats.t.sf((m + margin) / se, df), stats.t.cdf((m - margin) / se, df)))
        power = tost_power(sd, n, margin, confidence=confidence)
        q = float(stats.t.ppf((1 + confidence) / 2, df))
        nc = margin / se
        power_at_margin = float(stats.nct.sf(q, df, nc) + stats.nct.cdf(-q, df, nc))
    equivalent = bool(-margin < interval.lower and interval.upper < margin)
    return Equivalence(m, interval.lower, interval.upper, float(margin), interval.confidence, n, sd, p_value,
                       equivalent, power, power_at_margin)
