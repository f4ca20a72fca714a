"""Classical (Torgerson) multidimensional scaling, Algorithm 1: ``classical_mds`` and its result ``ClassicalMDS``."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike

from .._validation import check_distance_matrix, check_positive_int

__all__ = ["classical_mds"]


@dataclass(frozen=True)
class ClassicalMDS:
    """Result of ``classical_mds``.

    Attributes
    ----------
    embedding : (n, r) array, ``U_r L_r^{1/2}`` (rows are positions)
    eigenvalues : (n,) array
        All eigenvalues of ``B``, descending (negative ones kept for diagnosis).
    eigenvectors : (n, n) array
        Columns sign-fixed so that each one's largest-magnitude entry is positive.
    rank : int, the number of eigenvalues ``> tol``
    tol : float

    Examples
    --------
    >>> classical_mds([[0.0, 3.0, 5.0], [3.0, 0.0, 4.0], [5.0, 4.0, 0.0]]).rank
    2
    """
    embedding: np.ndarray
    eigenvalues: np.ndarray
    eigenvectors: np.ndarray
    rank: int
    tol: float

    @property
    def negative_mass(self) -> float:
        """Share of ``sum |lambda|`` carried by eigenvalues below ``-tol``: 0 for a Euclidean ``D``."""
        lam = self.eigenvalues
        total = float(np.abs(lam).sum())
        return float(np.abs(lam[lam < -self.tol]).sum()) / total if total > 0 else 0.0


def _eigenvector_signs(U: ArrayLike) -> np.ndarray:
    """The sign rule of the package: flip each column so that its largest-magnitude entry is positive."""
    U = np.asarray(U, dtype=float)
    if U.ndim != 2:
        raise ValueError(f"U must be 2-D (vectors in columns), got shape {U.shape}")
    signs = np.sign(U[np.argmax(np.abs(U), axis=0), np.arange(U.shape[1])])
    return np.where(signs == 0, 1.0, signs)


def double_centered_gram(D: ArrayLike) -> np.ndarray:
    """``B = -1/2 J (D * D) J`` with ``J = I - 11^T / n``."""
    D = check_distance_matrix(D)
    D2 = D * D
    B = D2 - D2.mean(axis=0, keepdims=True) - D2.mean(axis=1, keepdims=True) + D2.mean()
    B *= -0.5
    return 0.5 * (B + B.T)


def classical_mds(D: ArrayLike, *, rank: int | None = None, tol: float | None = None) -> ClassicalMDS:
    """Classical MDS of a distance matrix (Algorithm 1).

    Parameters
    ----------
    D : (n, n) array of symmetric, non-negative, zero-diagonal distances
    rank : int, optional, the dimensions kept (at most the numerical rank, the default)
    tol : float, optional
        Eigenvalues ``<= tol`` count as zero; default ``n * eps * max|lambda|``.

    Returns
    -------
    ClassicalMDS

    Examples
    --------
    >>> classical_mds([[0.0, 3.0, 5.0], [3.0, 0.0, 4.0], [5.0, 4.0, 0.0]]).embedding.shape
    (3, 2)
    """
    B = double_centered_gram(D)
    n = B.shape[0]
    lam, U = scipy.linalg.eigh(B)
    order = np.argsort(lam)[::-1]
    lam, U = lam[order], U[:, order]
    U = U * _eigenvector_signs(U)
    if tol is None:
        tol = n * np.finfo(float).eps * max(float(np.max(np.abs(lam))), np.finfo(float).tiny)
    r_num = int(np.sum(lam > tol))
    if rank is None:
        r = r_num
    else:
        r = check_positive_int(rank, "rank")
        if r > n:
            raise ValueError(f"rank={r} is larger than the number of points n={n}")
        if r > r_num:
            raise ValueError(f"rank={r} exceeds the numerical rank {r_num} of B (eigenvalues <= tol={tol:.2e} carry "
                             f"no real dimension); use rank <= {r_num}")
    X = U[:, :r] * np.sqrt(lam[:r])
    return ClassicalMDS(embedding=X, eigenvalues=lam, eigenvectors=U, rank=r_num, tol=float(tol))
