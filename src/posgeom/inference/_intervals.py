"""Intervals: a mean over seeds, a proportion, a power-law exponent; power of t tests and TOST."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, stats

from .._validation import check_confidence, check_positive_int, check_real


@dataclass(frozen=True)
class Interval:
    """A point estimate with a two-sided confidence interval at nominal coverage ``confidence``.

    Attributes
    ----------
    estimate, lower, upper, confidence : float

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


def t_interval(x: ArrayLike, *, confidence: float = 0.95) -> Interval:
    """Student-t interval for a mean: ``mean +- t_{1-a/2, n-1} s / sqrt(n)``.

    Parameters
    ----------
    x : (n,) array with n >= 2
    confidence : float, default 0.95

    Returns
    -------
    Interval

    Examples
    --------
    >>> round(t_interval([1.0, 2.0, 3.0]).upper, 3)  # 2 + t_{0.975, 2} 1 / sqrt(3)
    4.484
    """
    confidence = check_confidence(confidence)
    x = np.asarray(x, dtype=float)
    if x.ndim != 1 or x.size < 2 or not np.all(np.isfinite(x)):
        raise ValueError("x must be a finite 1-D array with at least 2 values")
    m, se = float(x.mean()), float(x.std(ddof=1) / np.sqrt(x.size))
    half = float(stats.t.ppf((1 + confidence) / 2, x.size - 1)) * se
    return Interval(m, m - half, m + half, confidence)


def wilson_interval(successes: int, n_trials: int, *, confidence: float = 0.95) -> Interval:
    """Wilson score interval (Wilson 1927) for a proportion ``successes / n_trials`` of independent trials."""
    confidence = check_confidence(confidence)
    n = check_positive_int(n_trials, "n_trials")
    successes = check_positive_int(successes, "successes", minimum=0)
    if successes > n:
        raise ValueError(f"successes must lie in [0, n] = [0, {n}], got {successes}")
    p, z = successes / n, float(stats.norm.ppf((1 + confidence) / 2))
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # the bounds are exactly 0 at no success and exactly 1 at no failure; spare them the rounding
    lower = 0.0 if successes == 0 else max(0.0, centre - half)
    upper = 1.0 if successes == n else min(1.0, centre + half)
    return Interval(p, lower, upper, confidence)


@dataclass(frozen=True)
class SlopeFit:
    """A least-squares slope with its t interval (``n - 2`` degrees of freedom), from ``power_law_fit``.

    Attributes
    ----------
    slope, lower, upper, intercept : float
    n : int
    confidence : float

    Examples
    --------
    >>> SlopeFit(-0.5, -0.6, -0.4, 0.0, 10, 0.95).contains(-1.0)
    False
    """
    slope: float
    lower: float
    upper: float
    intercept: float
    n: int
    confidence: float

    def contains(self, value: float) -> bool:
        """Whether ``lower <= value <= upper``.

        Parameters
        ----------
        value : float

        Returns
        -------
        bool

        Examples
        --------
        >>> SlopeFit(-0.5, -0.6, -0.4, 0.0, 10, 0.95).contains(-0.5)
        True
        """
        return not Interval(self.slope, self.lower, self.upper, self.confidence).excludes(value)


def power_law_fit(x: ArrayLike, y: ArrayLike, *, confidence: float = 0.95) -> SlopeFit:
    """The exponent of ``y ~ c x^b``: the OLS slope of ``log y`` on ``log x`` with its t interval.

    Parameters
    ----------
    x, y : (n,) array_like
        Positive, ``n >= 3``; repeated ``x`` (several seeds per width) are fine.
    confidence : float, default 0.95

    Returns
    -------
    SlopeFit

    Examples
    --------
    >>> round(power_law_fit([64, 128, 256, 512], [0.125, 0.088, 0.0626, 0.0442]).slope, 2)
    -0.5
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


def _nct_sf(q: float, df: int, nc: float) -> float:
    """Noncentral-t ``P(T > q)``, integrated from its definition where scipy returns nan."""
    value = float(stats.nct.sf(q, df, nc))
    if np.isfinite(value):
        return value
    from scipy import integrate
    value, _ = integrate.quad(lambda v: stats.norm.cdf(nc - q * math.sqrt(v / df)) * stats.chi2.pdf(v, df),
                              0.0, np.inf, limit=200)
    return float(min(max(value, 0.0), 1.0))


def t_test_power(effect_size: float, n_seeds: int, *, alpha: float = 0.05, alternative: str = "two-sided") -> float:
    """Power of the one-sample (or paired) t test over seeds for a standardised effect ``mean / sd``.

    Parameters
    ----------
    effect_size : float
    n_seeds : int, >= 2
    alpha : float, default 0.05
    alternative : {"two-sided", "greater"}, default "two-sided"
        ``"greater"``: the lower end of the two-sided ``1 - 2 alpha`` interval lies above 0.

    Returns
    -------
    float

    Examples
    --------
    >>> round(t_test_power(0.8, 20), 2)
    0.92
    """
    n = check_positive_int(n_seeds, "n_seeds", minimum=2)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    nc = effect_size * np.sqrt(n)
    if alternative == "greater":
        return _nct_sf(stats.t.ppf(1 - alpha, n - 1), n - 1, nc)
    if alternative != "two-sided":
        raise ValueError(f'alternative must be "two-sided" or "greater", got {alternative!r}')
    q = stats.t.ppf(1 - alpha / 2, n - 1)
    # the lower tail P(T(nc) < -q) is the upper tail P(T(-nc) > q), by the symmetry T(nc) = -T(-nc)
    return float(_nct_sf(q, n - 1, nc) + _nct_sf(q, n - 1, -nc))


def detectable_effect(n_seeds: int, *, power: float = 0.8, alpha: float = 0.05,
                      alternative: str = "two-sided") -> float:
    """The smallest standardised effect that ``t_test_power`` detects with ``power``.

    Parameters
    ----------
    n_seeds : int, >= 2
    power, alpha : float, default 0.8 and 0.05
    alternative : {"two-sided", "greater"}, default "two-sided"

    Returns
    -------
    float

    Examples
    --------
    >>> round(detectable_effect(5, alpha=0.005, alternative="greater"), 2)
    2.63
    """
    level = t_test_power(0.0, n_seeds, alpha=alpha, alternative=alternative)
    if not level < power < 1:
        raise ValueError(f"power must lie in ({level:.4g}, 1), the level of the test and 1; got {power!r}")
    return float(optimize.brentq(
        lambda e: t_test_power(e, n_seeds, alpha=alpha, alternative=alternative) - power, 0.0, 100.0))


def tost_power(sd: float, n_samples: int, margin: float, *, difference: float = 0.0, confidence: float = 0.95) -> float:
    """Exact power of two one-sided t tests (TOST) of a normal mean against ``+-margin``.

    Parameters
    ----------
    sd : float, > 0, the true standard deviation of one difference
    n_samples : int, >= 2
    margin : float, > 0
    difference : float, default 0.0 (the true mean difference)
    confidence : float, default 0.95

    Returns
    -------
    float

    Examples
    --------
    >>> round(tost_power(0.02, 5, 0.05), 3)
    0.964
    """
    from scipy import integrate
    confidence = check_confidence(confidence)
    n = check_positive_int(n_samples, "n_samples", minimum=2)
    sd, margin = check_real(sd, "sd"), check_real(margin, "margin")
    se, df = sd / math.sqrt(n), n - 1
    q = float(stats.t.ppf((1 + confidence) / 2, df))
    k, theta = margin / se, difference / se
    v_max = df * (k / q) ** 2  # beyond it margin - q s / sqrt(n) <= 0: never equivalent
    def integrand(v):
        h = k - q * math.sqrt(v / df)
        return (stats.norm.cdf(h - theta) - stats.norm.cdf(-h - theta)) * stats.chi2.pdf(v, df)
    value, _ = integrate.quad(integrand, 0.0, v_max, limit=200)
    return float(min(max(value, 0.0), 1.0))
