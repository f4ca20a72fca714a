"""The one bootstrap result and the percentile interval of replicates."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_confidence
from ._intervals import Interval


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
        ``CorrectedDistances`` of the cross-fitted bootstrap).

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
        """The bootstrap estimate of the statistic's bias (mean replicate minus the estimate)."""
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


def percentile_bootstrap(estimate: float, replicates: ArrayLike, *, confidence: float = 0.95, label: str = "",
                         point: ArrayLike | None = None) -> BootstrapEstimate:
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
        Stored as ``BootstrapEstimate.point``.

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


