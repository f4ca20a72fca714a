"""Stress: how well an encoding's distances reproduce the statistical distances between positions.

Definition (the paper's): for an encoding ``P`` with rows ``p_i`` and target distances ``D``,
``stress(P) = sum_{i<j} (||p_i - p_j|| - D_ij)^2 / sum_{i<j} D_ij^2``.
This *raw* stress depends on the scale of ``P``. The *scale-optimal* stress is ``min_{a >= 0} stress(a P)``; with
``E_ij = ||p_i - p_j||`` the minimiser is ``a* = sum E D / sum E^2`` and ``stress(a* P) = 1 - (sum E D)^2 / (sum E^2
sum D^2)``, in ``[0, 1]``. The book always says which of the two it reports.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_distance_matrix, check_matrix
from ..geometry.euclidean import pairwise_distances

__all__ = ["optimal_scale", "stress_of_distances", "stress_of_encoding"]

_SCALES = ("raw", "optimal")


def _upper(E, D):
    """The upper triangles of two validated distance matrices of one shape (``D`` not all zero)."""
    E = check_distance_matrix(E, "E")
    D = check_distance_matrix(D, "D")
    if E.shape != D.shape:
        raise ValueError(f"E and D must have the same shape, got {E.shape} and {D.shape}")
    iu = np.triu_indices(D.shape[0], k=1)
    d = D[iu]
    if not np.any(d > 0):
        raise ValueError("D is zero for every pair of positions: stress is undefined (0/0)")
    return E[iu], d


def stress_terms(e: np.ndarray, d: np.ndarray) -> tuple[float, float, float]:
    """Raw stress, scale-optimal stress and ``a*`` of upper triangles ``e`` against ``d`` (``d`` not all zero)."""
    ee, ed, dd = float(e @ e), float(e @ d), float(d @ d)
    a = ed / ee if ee > 0 else 0.0
    r_raw, r_opt = e - d, e * a - d
    return float(r_raw @ r_raw) / dd, float(r_opt @ r_opt) / dd, a


def optimal_scale(E: ArrayLike, D: ArrayLike) -> float:
    """The scale ``a* = sum E D / sum E^2`` (over ``i < j``) that minimises ``stress(a E, D)``; 0 if ``E == 0``.

    Parameters
    ----------
    E, D : (n, n) array_like
        Distances induced by an encoding; target distances, not zero for every pair.

    Returns
    -------
    float

    Examples
    --------
    >>> optimal_scale(4 * np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([[0.0, 1.0], [1.0, 0.0]]))
    0.25
    """
    return stress_terms(*_upper(E, D))[2]


def stress_of_distances(E: ArrayLike, D: ArrayLike, *, scale: str = "raw") -> float:
    """Stress of induced distances ``E`` against target distances ``D`` (both n x n).

    Parameters
    ----------
    E, D : (n, n) arrays
        Distances induced by an encoding (a relative scheme's induced distance); target distances.
    scale : {"raw", "optimal"}, default "raw" (raw or scale-optimal stress, the module docstring)

    Returns
    -------
    float
        Stress, ``>= 0``; the scale-optimal value lies in ``[0, 1]``.

    Examples
    --------
    >>> D = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]])
    >>> stress_of_distances(3 * D, D), stress_of_distances(3 * D, D, scale="optimal")
    (4.0, 0.0)
    """
    if scale not in _SCALES:
        raise ValueError(f"scale must be one of {_SCALES}, got {scale!r}")
    raw, optimal, _ = stress_terms(*_upper(E, D))
    return optimal if scale == "optimal" else raw


def stress_of_encoding(P: ArrayLike, D: ArrayLike, *, scale: str = "raw") -> float:
    """Stress of an encoding ``P`` (n x d, rows = positions) against target distances ``D`` (n x n).

    Parameters
    ----------
    P, D : (n, d) and (n, n) array_like
        An encoding (its Euclidean row distances are compared with ``D``); target distances.
    scale : {"raw", "optimal"}, default "raw"

    Returns
    -------
    float

    Examples
    --------
    >>> D = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]])
    >>> stress_of_encoding([[0.0], [2.0], [4.0]], D), stress_of_encoding([[0.0], [2.0], [4.0]], D, scale="optimal")
    (1.0, 0.0)
    """
    P = check_matrix(P, "P", min_rows=2)
    D = np.asarray(D, dtype=float)
    if D.ndim != 2 or D.shape[0] != P.shape[0]:
        raise ValueError(f"P has {P.shape[0]} rows (positions) but D has shape {D.shape}; both must describe the "
                         "same n positions")
    return stress_of_distances(pairwise_distances(P), D, scale=scale)
