"""Rank correlation, permutation p-values and the power of the Spearman test."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats
from scipy.stats import rankdata

from .._validation import check_confidence, check_positive_int, check_rng
from ._intervals import Interval

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


