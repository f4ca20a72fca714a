"""Euclidean distances between the rows of an encoding: ``pairwise_distances``."""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.spatial.distance import pdist, squareform

from .._validation import check_matrix

__all__ = ["pairwise_distances"]


def pairwise_distances(P: ArrayLike) -> np.ndarray:
    """Euclidean distances ``||p_i - p_j||`` between the rows of an encoding.

    Parameters
    ----------
    P : (n, d) array_like, row ``i`` the vector of position ``i`` (``n >= 2``)

    Returns
    -------
    (n, n) float ndarray

    Examples
    --------
    >>> pairwise_distances([[0.0, 0.0], [3.0, 4.0]])
    array([[0., 5.],
           [5., 0.]])
    """
    P = check_matrix(P, "P", min_rows=2)
    return squareform(pdist(P))
