"""Checks a reader can read: :func:`check` prints ``✓ claim`` when it holds and raises with the numbers when not;
:func:`reproduces` says whether a re-run training reproduces its stored run."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["check", "reproduces"]


def check(claim: str, condition: object, detail: str = "") -> None:
    """Assert ``condition`` and print the claim it verifies.

    Parameters
    ----------
    claim : str
    condition : bool-like
        The test; numpy booleans are accepted, arrays are refused (use ``.all()`` or ``.any()``).
    detail : str, optional
        The numbers behind the claim, printed after it and in the ``AssertionError`` raised when it fails.

    Examples
    --------
    >>> check("two is larger than one", 2 > 1)
    ✓ two is larger than one
    """
    if not isinstance(claim, str) or not claim.strip():
        raise TypeError("claim must be a non-empty string stating what is checked")
    size = getattr(condition, "size", 1)
    if size != 1:
        raise TypeError(f"condition must be a single truth value, got an array of size {size}; use .all() or .any()")
    suffix = f" ({detail})" if detail else ""
    if not bool(condition):
        raise AssertionError(f"claim does not hold: {claim}{suffix}")
    print(f"✓ {claim}{suffix}")


def reproduces(again: ArrayLike, stored: ArrayLike, *, axis: int = 0, level: float = 0.99) -> tuple[bool, str]:
    """Whether a re-run of a stored training's first seeds reproduces it: bit for bit, or as a draw of its seeds.

    Seeded training is bit-reproducible on the CPU kernels that stored it; on others (AVX-512 for AVX2) it drifts,
    at times as far as another seed, so each value must then lie in the stored seeds' ``level`` prediction interval
    (Bonferroni over the values): a stale stored run fails, a fresh draw passes with probability ``level`` or more.

    Parameters
    ----------
    again, stored : array-like
        The re-run's values for the first seeds along ``axis``; the stored values for every seed (3 or more).
    axis, level : int and float, default 0 and 0.99

    Returns
    -------
    (bool, str)

    Examples
    --------
    >>> reproduces([0.91], [0.91, 0.88, 0.93])
    (True, 'bit for bit')
    """
    a, b = np.asarray(again, dtype=float), np.asarray(stored, dtype=float)
    k, n = a.shape[axis], b.shape[axis]
    if a.ndim != b.ndim or np.delete(a.shape, axis).tolist() != np.delete(b.shape, axis).tolist() or not 2 < n >= k:
        raise ValueError(f"again {a.shape} must hold the first seeds of stored {b.shape} (3 or more) along axis {axis}")
    if np.array_equal(a, np.take(b, np.arange(k), axis=axis)):
        return True, "bit for bit"
    from scipy import stats
    mean, sd = b.mean(axis=axis, keepdims=True), b.std(axis=axis, ddof=1, keepdims=True)
    half = stats.t.ppf(1 - (1 - level) / (2 * a.size), n - 1) * sd * np.sqrt(1 + 1 / n)
    ok = bool(np.all(np.abs(a - mean) <= half))
    return ok, f"not bit for bit on this CPU; in the stored seeds' {level:.0%} prediction interval: {('no', 'yes')[ok]}"
