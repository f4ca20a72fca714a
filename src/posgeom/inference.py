"""Statistical inference shared by every chapter: bootstrap results, rank correlation, permutation tests.

One implementation each, used by the monotonicity measures (:mod:`posgeom.encodings.monotonicity`), the noise of
the geometry (:mod:`posgeom.geometry.noise`) and the chapters' studies:

* :class:`BootstrapResult`: replicates of a statistic with percentile and basic intervals;
* :func:`rank`, :func:`pearson_rows`, :func:`spearman`: Spearman's rho as the Pearson correlation of average ranks,
  vectorised over rows;
* :class:`PermutationTest` and :func:`permutation_p_value`: a permutation null and its p-value,
  ``(1 + #{null at least as extreme}) / (1 + B)`` for Monte Carlo nulls (never 0), ``#{...} / B`` for exact ones.

Pure numpy/scipy; the base layer of the package, below ``corpus``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata

__all__ = [
    "BootstrapResult",
    "PermutationTest",
    "rank",
    "pearson_rows",
    "spearman",
    "permutation_p_value",
]

_ALTERNATIVES = ("greater", "two-sided")


@dataclass(frozen=True)
class BootstrapResult:
    """Bootstrap replicates of a statistic and their confidence intervals.

    Attributes
    ----------
    estimate : float or ndarray
        The statistic on the original sample.
    samples : ndarray, shape ``(n_boot, *shape)``
        The statistic on each resample.
    confidence : float
        Coverage of the intervals, e.g. 0.95.

    Examples
    --------
    >>> r = BootstrapResult(estimate=0.5, samples=np.linspace(0, 1, 101), confidence=0.9)
    >>> round(float(r.lower), 6), round(float(r.upper), 6)
    (0.05, 0.95)
    """

    estimate: float | np.ndarray
    samples: np.ndarray
    confidence: float

    @property
    def lower(self):
        """Lower end of the percentile interval: the ``(1 - confidence)/2`` quantile of the replicates."""
        return np.quantile(self.samples, (1 - self.confidence) / 2, axis=0)

    @property
    def upper(self):
        """Upper end of the percentile interval: the ``(1 + confidence)/2`` quantile of the replicates."""
        return np.quantile(self.samples, (1 + self.confidence) / 2, axis=0)

    @property
    def basic_interval(self):
        """The basic (reverse-percentile) interval ``(2 estimate - upper, 2 estimate - lower)``.

        It corrects the percentile interval for the shift of the replicates: use it when :attr:`bias` is not small
        against :attr:`standard_error`.
        """
        return 2 * np.asarray(self.estimate) - self.upper, 2 * np.asarray(self.estimate) - self.lower

    @property
    def standard_error(self):
        """Standard deviation of the replicates (ddof=1)."""
        return np.std(self.samples, axis=0, ddof=1)

    @property
    def bias(self):
        """Mean replicate minus estimate: the bootstrap estimate of the estimator's bias."""
        return np.mean(self.samples, axis=0) - self.estimate


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
