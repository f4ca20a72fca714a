"""Stress: how well an encoding's distances reproduce the statistical distances between positions.

Definition (the paper's, used verbatim): for an encoding ``P`` with rows ``p_i`` and target distances ``D``,

``stress(P) = sum_{i<j} (||p_i - p_j|| - D_ij)^2 / sum_{i<j} D_ij^2``.

This *raw* stress depends on the scale of ``P``: sinusoidal distances reach ``sqrt(d)`` while Hellinger distances
are at most 1. The *scale-optimal* stress is ``min_{a >= 0} stress(a P)``; with ``E_ij = ||p_i - p_j||`` the minimiser
is ``a* = sum E D / sum E^2`` and ``stress(a* P) = 1 - (sum E D)^2 / (sum E^2 sum D^2)``, a number in ``[0, 1]``.
The book always says which of the two it reports.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import pdist, squareform

from .._validation import check_matrix

__all__ = [
    "pairwise_distances",
]


def pairwise_distances(P) -> np.ndarray:
    """Euclidean distances ``||p_i - p_j||`` between the rows of an encoding ``P`` (n x d) as an (n x n) array.

    Parameters
    ----------
    P : (n, d) array_like
        An encoding: row ``i`` is the vector of position ``i`` (``n >= 2``).

    Returns
    -------
    (n, n) float ndarray
        Symmetric, zero diagonal.

    Raises
    ------
    ValueError
        If ``P`` is not 2-D, has fewer than two rows, or holds NaN/inf.
    TypeError
        If ``P`` is not numeric.

    Examples
    --------
    >>> pairwise_distances([[0.0, 0.0], [3.0, 4.0]])
    array([[0., 5.],
           [5., 0.]])
    """
    P = check_matrix(P, "P", min_rows=2)
    return squareform(pdist(P))
