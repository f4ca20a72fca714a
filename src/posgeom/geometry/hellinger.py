"""Hellinger and Fisher-Rao distances between positional distributions.

================================  ==========================================================================
``hellinger_distances``           ``d_H = sqrt(1 - BC)``, in ``[0, 1]``
``fisher_rao_distances``          ``d_FR = 2 arccos(BC)``, in ``[0, pi]``
================================  ==========================================================================
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

from .._validation import check_distributions

__all__ = [
    "hellinger_distances",
    "fisher_rao_distances",
]


# Sparse input at least this dense (over the columns in use), and at most this many cells, is multiplied densely.
_DENSE_PRODUCT_DENSITY = 0.01


_DENSE_PRODUCT_CELLS = 1 << 26


def _bhattacharyya_coefficients(P) -> np.ndarray:
    """Return the (n x n) matrix of Bhattacharyya coefficients ``BC_ij = sum_k sqrt(P_ik P_jk)``."""
    BC = _sqrt_gram(P)
    BC = np.clip(BC, 0.0, 1.0)
    np.fill_diagonal(BC, 1.0)
    return BC


def _sqrt_gram(P) -> np.ndarray:
    """The symmetrised Gram matrix ``G = sqrt(P) sqrt(P)^T`` (unclipped; its diagonal is 1 up to rounding)."""
    P = check_distributions(P)
    if sp.issparse(P):
        S = P.sqrt()
        used = np.flatnonzero(np.bincount(S.indices, minlength=S.shape[1]))
        n = S.shape[0]
        if S.nnz >= _DENSE_PRODUCT_DENSITY * n * max(used.size, 1) and n * used.size <= _DENSE_PRODUCT_CELLS:
            # Rows of real positional distributions share most of their support: a dense BLAS product over the
            # columns in use beats the sparse product (see benchmarks/bench_geometry.py).
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

    ``d_H(mu, nu) = sqrt(1 - sum_k sqrt(mu_k nu_k))``: the normalisation with values in ``[0, 1]`` (0 for equal
    distributions, 1 for disjoint supports). Some texts omit the ``1/sqrt(2)``; this book never does.

    Parameters
    ----------
    P : (n, V) array or sparse matrix
        Rows are probability distributions, e.g. from :func:`posgeom.position_distributions`.

    Returns
    -------
    D : (n, n) float ndarray
        Symmetric, zero diagonal, entries in ``[0, 1]``, with ``D**2 = 1 - BC``.

    Raises
    ------
    ValueError
        If a row is not a probability distribution, or ``P`` is not finite and 2-D.

    Notes
    -----
    Computed as ``sqrt((G_ii + G_jj)/2 - G_ij)`` from one (sparse) product ``G = sqrt(P) sqrt(P)^T``: exactly
    symmetric, two equal rows at exactly 0; for nearly equal rows the rounding of ``G`` gives an absolute error of
    up to about ``1e-8``.

    Examples
    --------
    >>> hellinger_distances([[0.5, 0.5], [1.0, 0.0]]).round(3)
    array([[0.   , 0.541],
           [0.541, 0.   ]])
    """
    # d_H^2 = ||s_i - s_j||^2 / 2 = (G_ii + G_jj) / 2 - G_ij, with the computed diagonal rather than the exact 1:
    # equal rows then give exactly 0 (1 - BC would leave ~1e-16 under the square root, i.e. ~1e-8).
    G = _sqrt_gram(P)
    g = np.diag(G).copy()
    D = _hellinger_from_products(g[:, None], g[None, :], G)
    np.fill_diagonal(D, 0.0)
    return D


def _hellinger_from_products(sq_norm_a, sq_norm_b, cross):
    """``d_H`` from the products of square-root distributions ``a = sqrt(mu)``, ``b = sqrt(nu)``."""
    return np.sqrt(np.clip(0.5 * (sq_norm_a + sq_norm_b) - cross, 0.0, 1.0))


def fisher_rao_distances(P: ArrayLike) -> np.ndarray:
    """Pairwise Fisher-Rao geodesic distances ``2 arccos(BC)`` between the rows of ``P``, in ``[0, pi]``.

    Relation to the Hellinger distance: ``d_FR = 4 arcsin(d_H / sqrt(2))`` (arc against chord on the sphere of
    radius 2), so ``d_FR >= 2 sqrt(2) d_H`` with equality only in the limit of nearby distributions.

    Parameters
    ----------
    P : (n, V) array or sparse matrix
        Rows are probability distributions.

    Returns
    -------
    (n, n) float ndarray
        Symmetric, zero diagonal, entries in ``[0, pi]`` (``pi`` for disjoint supports).

    Raises
    ------
    ValueError
        If a row is not a probability distribution, or ``P`` is not finite and 2-D.

    Examples
    --------
    >>> fisher_rao_distances([[1.0, 0.0], [0.0, 1.0]]).round(4)
    array([[0.    , 3.1416],
           [3.1416, 0.    ]])
    """
    return 2.0 * np.arccos(_bhattacharyya_coefficients(P))
