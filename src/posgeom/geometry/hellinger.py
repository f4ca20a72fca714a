"""Hellinger (``d_H = sqrt(1 - BC)``, in ``[0, 1]``) and Fisher-Rao (``2 arccos(BC)``, in ``[0, pi]``) distances."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

from .._validation import check_distributions

__all__ = ["hellinger_distances", "fisher_rao_distances"]


# Sparse input at least this dense (over the columns in use), and at most this many cells, is multiplied densely.
_DENSE_PRODUCT_DENSITY = 0.01
_DENSE_PRODUCT_CELLS = 1 << 26


def _bhattacharyya_coefficients(P) -> np.ndarray:
    """The (n x n) Bhattacharyya coefficients ``BC_ij = sum_k sqrt(P_ik P_jk)``, clipped to ``[0, 1]``."""
    BC = np.clip(_sqrt_gram(P), 0.0, 1.0)
    np.fill_diagonal(BC, 1.0)
    return BC


def _sqrt_gram(P) -> np.ndarray:
    """The symmetrised Gram matrix ``sqrt(P) sqrt(P)^T`` (unclipped)."""
    P = check_distributions(P)
    if sp.issparse(P):
        S = P.sqrt()
        used = np.flatnonzero(np.bincount(S.indices, minlength=S.shape[1]))
        n = S.shape[0]
        if S.nnz >= _DENSE_PRODUCT_DENSITY * n * max(used.size, 1) and n * used.size <= _DENSE_PRODUCT_CELLS:
            # real rows share most of their support: a dense product over the used columns wins (bench_geometry.py)
            M = S[:, used].toarray()
            BC = M @ M.T
        else:
            BC = (S @ S.T).toarray()
    else:
        S = np.sqrt(P)
        BC = S @ S.T
    return 0.5 * (BC + BC.T)


def hellinger_distances(P: ArrayLike) -> np.ndarray:
    """Pairwise Hellinger distances between the rows of ``P``.

    The book's normalisation: ``d_H(mu, nu) = sqrt(1 - sum_k sqrt(mu_k nu_k))`` in ``[0, 1]`` (1 for disjoint
    supports), never with the ``1/sqrt(2)`` omitted. Computed from one product ``G = sqrt(P) sqrt(P)^T`` as
    ``sqrt((G_ii + G_jj)/2 - G_ij)``: equal rows give exactly 0.

    Parameters
    ----------
    P : (n, V) array or sparse matrix whose rows are probability distributions

    Returns
    -------
    (n, n) float ndarray

    Examples
    --------
    >>> hellinger_distances([[0.5, 0.5], [1.0, 0.0]]).round(3)
    array([[0.   , 0.541],
           [0.541, 0.   ]])
    """
    return distances_from_squared(squared_from_gram(_sqrt_gram(P)))


def squared_from_gram(G: np.ndarray) -> np.ndarray:
    """``Q_ij = (G_ii + G_jj)/2 - (G_ij + G_ji)/2`` of a Gram matrix: symmetric, zero diagonal, unclipped."""
    g = np.diag(G).copy()
    Q = 0.5 * (g[:, None] + g[None, :]) - 0.5 * (G + G.T)
    np.fill_diagonal(Q, 0.0)
    return Q


def distances_from_squared(Q: np.ndarray) -> np.ndarray:
    """``sqrt(clip(Q, 0, 1))`` with a zero diagonal."""
    D = np.sqrt(np.clip(Q, 0.0, 1.0))
    np.fill_diagonal(D, 0.0)
    return D


def fisher_rao_distances(P: ArrayLike) -> np.ndarray:
    """Pairwise Fisher-Rao geodesic distances ``2 arccos(BC) = 4 arcsin(d_H / sqrt(2))`` between the rows of ``P``.

    Parameters
    ----------
    P : (n, V) array or sparse matrix

    Returns
    -------
    (n, n) float ndarray

    Examples
    --------
    >>> fisher_rao_distances([[1.0, 0.0], [0.0, 1.0]]).round(4)
    array([[0.    , 3.1416],
           [3.1416, 0.    ]])
    """
    return 2.0 * np.arccos(_bhattacharyya_coefficients(P))
