"""Absolute positional encodings as matrices ``P`` (n x d, row ``i`` encodes position ``i``).

* :func:`sinusoidal_encoding`: Vaswani et al.'s.
* :func:`mds_encoding`: Algorithm 1, classical MDS of the statistical distances placed in ``R^d``.
* :func:`low_rank_factors`: the ``(n x r) (r x d)`` factorisation that stores an encoding with ``r (n + d)`` numbers.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_matrix, check_positive_int, check_rng
from ..geometry.mds import _eigenvector_signs, classical_mds
from ._relative import sinusoidal_frequencies

__all__ = ["sinusoidal_encoding", "mds_encoding", "low_rank_factors"]


def sinusoidal_encoding(n_positions: int, d_model: int, *, base: float = 10000.0) -> np.ndarray:
    """The sinusoidal encoding of Vaswani et al. (2017).

    ``P[i, 2k] = sin(i theta_k)``, ``P[i, 2k+1] = cos(i theta_k)``, ``theta_k = base^(-2k/d)``: every row has norm
    ``sqrt(d/2)`` and ``||p_i - p_j||`` depends only on ``i - j``.

    Parameters
    ----------
    n_positions : int
    d_model : int, even
    base : float, default 10000.0

    Returns
    -------
    (n, d) float ndarray, row ``i`` encodes position ``i``

    Examples
    --------
    >>> sinusoidal_encoding(2, 4).round(3)
    array([[0.   , 1.   , 0.   , 1.   ],
           [0.841, 0.54 , 0.01 , 1.   ]])
    """
    n, d = check_positive_int(n_positions, "n_positions"), d_model
    theta = sinusoidal_frequencies(d, base=base)
    angles = np.arange(n, dtype=float)[:, None] * theta[None, :]
    P = np.empty((n, d))
    P[:, 0::2] = np.sin(angles)
    P[:, 1::2] = np.cos(angles)
    return P


def _orthonormal_frame(d: int, r: int, *, rng=None) -> np.ndarray:
    """An orthonormal map ``W`` (d x r, ``W^T W = I_r``): the first ``r`` axes, or a random frame drawn from ``rng``."""
    if rng is None:
        return np.eye(d, r)
    G = check_rng(rng).standard_normal((d, r))
    Q, R = np.linalg.qr(G)
    return Q * np.where(np.diag(R) < 0, -1.0, 1.0)


def mds_encoding(D: ArrayLike, d_model: int, *, rank: int | None = None, frame: str = "pad",
                 rng: int | np.random.Generator, tol: float | None = None) -> np.ndarray:
    """The MDS encoding of Algorithm 1: classical MDS of ``D``, placed in the model width ``d``.

    ``P = X W^T`` with ``X = U_r L_r^{1/2}`` (``posgeom.classical_mds``) and ``W`` (d x r) orthonormal, so distances
    between rows of ``P`` are those of ``X`` whatever ``W``.

    Parameters
    ----------
    D : (n, n) array
    d_model : int, ``>= rank``
    rank : int, optional
        MDS dimensions ``r``; ``None`` keeps the positive part of ``B``.
    frame : {"pad", "random"}, default "pad"
        ``W``: zero padding after the first ``r`` coordinates, or a random orthonormal frame drawn from ``rng``.
    rng : int or numpy.random.Generator, used only with ``frame="random"``
    tol : float, optional (``classical_mds``'s eigenvalue tolerance)

    Returns
    -------
    (n, d) float ndarray

    Examples
    --------
    >>> mds_encoding(np.abs(np.subtract.outer(np.arange(4.0), np.arange(4.0))), d_model=3, rng=0).shape
    (4, 3)
    """
    if frame not in ("pad", "random"):
        raise ValueError(f"frame must be 'pad' (zeros after the first r coordinates) or 'random' (a random "
                         f"orthonormal frame drawn from rng), got {frame!r}")
    rng = check_rng(rng)
    d = check_positive_int(d_model, "d_model")
    result = classical_mds(D, rank=rank, tol=tol)
    X = result.embedding
    if X.shape[1] == 0:
        raise ValueError("B has no positive eigenvalue (all positions are at distance 0): there is no positional "
                         "signal to encode")
    if X.shape[1] > d:
        raise ValueError(f"the MDS configuration has r={X.shape[1]} dimensions but the width is d={d}; "
                         f"pass rank <= {d}")
    return X @ _orthonormal_frame(d, X.shape[1], rng=rng if frame == "random" else None).T


@dataclass(frozen=True)
class LowRankFactors:
    """An encoding stored as ``P ~= left @ right`` (:func:`~posgeom.encodings.low_rank_factors`).

    Attributes
    ----------
    left : (n, r) array
        ``U_r diag(s_r)``: position ``i``'s coordinates in an ``r``-dimensional subspace.
    right : (r, d) array
        ``V_r^T``, orthonormal rows, so rows of ``left`` and of ``left @ right`` have the same distances.

    Examples
    --------
    >>> f = low_rank_factors(sinusoidal_encoding(16, 8), 2)
    >>> f.n_parameters, f.n_full_parameters
    (48, 128)
    """
    left: np.ndarray
    right: np.ndarray

    @property
    def n_parameters(self) -> int:
        """Numbers stored by the factorisation, ``r (n + d)``."""
        n, r = self.left.shape
        return int(r * (n + self.right.shape[1]))

    @property
    def n_full_parameters(self) -> int:
        """Numbers stored by the full encoding, ``n d``."""
        return int(self.left.shape[0] * self.right.shape[1])

    @property
    def saving(self) -> float:
        """Fraction of parameters saved, ``1 - r (n + d) / (n d)`` (negative if the factors are larger)."""
        return 1.0 - self.n_parameters / self.n_full_parameters


def low_rank_factors(P: ArrayLike, r: int) -> LowRankFactors:
    """Best rank-``r`` factorisation of an encoding by the truncated SVD ``P = U S V^T``.

    ``left = U_r S_r``, ``right = V_r^T``: the closest rank-``r`` matrix to ``P`` in Frobenius norm (Eckart-Young), with
    signs fixed (largest-magnitude entry of each column of ``U`` positive).

    Parameters
    ----------
    P : (n, d) array
    r : int, ``1 <= r <= min(n, d)``

    Returns
    -------
    LowRankFactors

    Examples
    --------
    >>> f = low_rank_factors(sinusoidal_encoding(8, 4), 4)
    >>> np.allclose(f.left @ f.right, sinusoidal_encoding(8, 4))
    True
    """
    P = check_matrix(P, "P")
    r = check_positive_int(r, "r")
    n, d = P.shape
    if r > min(n, d):
        raise ValueError(f"r={r} exceeds min(n, d) = {min(n, d)} for P of shape {P.shape}; use r <= {min(n, d)}")
    U, s, Vt = np.linalg.svd(P, full_matrices=False)
    signs = _eigenvector_signs(U)
    U, Vt = U * signs, Vt * signs[:, None]
    return LowRankFactors(left=U[:, :r] * s[:r], right=Vt[:r].copy())
