"""Rank correlation and permutation p-values."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.stats import rankdata

_ALTERNATIVES = ("greater", "two-sided")


@dataclass(frozen=True)
class PermutationTest:
    """A statistic, its permutation null and the p-value.

    Attributes
    ----------
    statistic : float
    null : ndarray, the statistic under the permutations (all of them when ``exact``)
    p_value : float
    alternative : {"greater", "two-sided"}
    exact : bool

    Examples
    --------
    >>> PermutationTest(0.9, np.array([0.1, 0.5, 0.95]), 0.5, "greater", False).p_value
    0.5
    """
    statistic: float
    null: np.ndarray
    p_value: float
    alternative: str
    exact: bool


def rank(a: ArrayLike, *, axis: int = -1) -> np.ndarray:
    """Average ranks along ``axis`` (ties share the mean of their ranks), as in Spearman's rho."""
    return rankdata(np.asarray(a, dtype=float), axis=axis)


def pearson_rows(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """Pearson correlation of matching rows (last axis), broadcasting; NaN where a row is constant."""
    a, b = (np.asarray(v, dtype=float) - np.mean(v, axis=-1, keepdims=True) for v in (a, b))
    den = np.sqrt((a * a).sum(axis=-1) * (b * b).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 1e-12, (a * b).sum(axis=-1) / np.where(den > 0, den, 1.0), np.nan)


def spearman(x: ArrayLike, y: ArrayLike) -> float:
    """Spearman's rank correlation (Pearson correlation of average ranks) of two vectors.

    Parameters
    ----------
    x, y : (m,) array_like
        Finite, ``m >= 2``; a constant vector raises (never NaN).

    Returns
    -------
    float

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


def permutation_p_value(statistic: float, null: ArrayLike, *, alternative: str = "greater",
                        exact: bool = False) -> float:
    """The p-value of ``statistic`` against a permutation ``null``.

    Parameters
    ----------
    statistic : float
    null : (B,) array_like
        The statistic on ``B`` random permutations, or on all (``exact=True``).
    alternative : {"greater", "two-sided"}, default "greater"
        Counts ``null >= statistic``, or ``|null| >= |statistic|``.
    exact : bool, default False
        Exact: ``#{extreme} / B``. Monte Carlo: ``(1 + #{extreme}) / (1 + B)``, never 0 and valid for finite ``B``.

    Returns
    -------
    float

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
    hits = int(np.count_nonzero(null >= statistic - tol if alternative == "greater" else
                                np.abs(null) >= abs(statistic) - tol))
    return hits / null.size if exact else (1 + hits) / (1 + null.size)


def sign_flip_p_value(x: ArrayLike) -> float:
    """Exact two-sided sign-flip p-value of the mean of ``x`` over all ``2^n`` sign patterns.

    Parameters
    ----------
    x : (n,) array_like, one contrast per independent unit (seed), ``1 <= n <= 20``

    Returns
    -------
    float

    Examples
    --------
    >>> sign_flip_p_value([1.0, 2.0, 3.0, 4.0])  # only the all-plus and all-minus patterns are as extreme
    0.125
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 1 or not 1 <= x.size <= 20:
        raise ValueError(f"x must be a 1-D array of 1 to 20 contrasts, got shape {x.shape}; "
                         "beyond 20 use a Monte Carlo null with permutation_p_value")
    if not np.all(np.isfinite(x)):
        raise ValueError("x must be finite")
    signs = 1 - 2 * ((np.arange(2**x.size)[:, None] >> np.arange(x.size)) & 1)
    return permutation_p_value(x.mean(), signs @ x / x.size, alternative="two-sided", exact=True)
