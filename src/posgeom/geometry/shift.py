"""Shift-equivariance: lag profiles, Toeplitz structure, and the Fourier modes of MDS."""
from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_distance_matrix, check_matrix, check_positive_int
from .mds import classical_mds

__all__ = ["shift_equivariance_defect", "shift_equivariant_distributions", "fourier_basis", "subspace_alignment",
           "fourier_alignment"]


def lag_profile(D: ArrayLike) -> np.ndarray:
    """Mean distance at each lag: ``profile[k] = mean_i D[i, i + k]`` for ``k = 0..n-1``."""
    D = check_distance_matrix(D)
    return np.array([np.diagonal(D, k).mean() for k in range(D.shape[0])])


def toeplitz_part(D) -> np.ndarray:
    """The closest (least-squares) symmetric Toeplitz matrix to ``D``: each diagonal replaced by its mean."""
    profile = lag_profile(D)
    n = profile.size
    return profile[np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])]


def shift_equivariance_defect(D: ArrayLike) -> float:
    """``||D - T(D)||_F / ||D||_F`` in ``[0, 1]``, ``T`` the Toeplitz part: 0 when ``D`` depends on ``|i - j|`` only.

    Parameters
    ----------
    D : (n, n) array_like, not identically zero

    Returns
    -------
    float

    Examples
    --------
    >>> round(shift_equivariance_defect([[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]]), 3)
    0.378
    """
    D = check_distance_matrix(D)
    norm = np.linalg.norm(D)
    if norm == 0:
        raise ValueError("D is zero everywhere: the shift-equivariance defect is undefined (0/0)")
    return float(np.linalg.norm(D - toeplitz_part(D)) / norm)


_KINDS = ("dct", "dft")


def shift_equivariant_distributions(n_positions: int, *, width: float = 3.0, step: int = 4,
                                    cyclic: bool = False) -> np.ndarray:
    """Shifted copies of one Gaussian profile on a ring of tokens, ``step`` tokens apart: ``D`` exactly Toeplitz.

    Parameters
    ----------
    n_positions : int, >= 2
    width : float, default 3.0 (the standard deviation in positions)
    step : int, default 4
    cyclic : bool, default False
        ``True``: the ring closes after ``n`` positions and ``D`` is circulant.

    Returns
    -------
    (n, V) float ndarray

    Examples
    --------
    >>> shift_equivariant_distributions(4, width=1.0, step=2, cyclic=True).shape
    (4, 8)
    """
    n = check_positive_int(n_positions, "n_positions", minimum=2)
    step = check_positive_int(step, "step")
    if isinstance(width, bool) or not isinstance(width, numbers.Real) or not np.isfinite(width) or width <= 0:
        raise ValueError(f"width must be a finite number > 0, got {width!r}")
    if not isinstance(cyclic, bool):
        raise TypeError(f"cyclic must be True or False, got {cyclic!r}")
    sigma = float(width) * step
    V = step * n if cyclic else step * (n - 1) + 1 + 2 * int(np.ceil(8 * sigma))
    k = np.arange(V)
    centres = step * np.arange(n)
    delta = np.abs(k[None, :] - centres[:, None]) % V
    ring = np.minimum(delta, V - delta).astype(float)
    mu = np.exp(-(ring**2) / (2 * sigma**2))
    return mu / mu.sum(axis=1, keepdims=True)


def fourier_basis(n_positions: int, m: int, *, kind: str = "dct") -> np.ndarray:
    """The ``m`` lowest-frequency non-constant Fourier modes on ``n`` points, as orthonormal columns.

    Parameters
    ----------
    n_positions : int
    m : int, ``1 <= m <= n - 1``
    kind : {"dct", "dft"}
        ``"dct"``: ``sqrt(2/n) cos(pi f (i + 1/2) / n)`` (Toeplitz ``D``); ``"dft"``: cos then sin (circulant ``D``).

    Returns
    -------
    (n, m) float ndarray

    Examples
    --------
    >>> fourier_basis(6, 3, kind="dft").shape
    (6, 3)
    """
    n = check_positive_int(n_positions, "n_positions", minimum=2)
    m = check_positive_int(m, "m")
    if m > n - 1:
        raise ValueError(f"only n - 1 = {n - 1} non-constant modes exist on n={n} points, got m={m}")
    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {_KINDS}, got {kind!r}")
    i = np.arange(n, dtype=float)
    if kind == "dct":
        f = np.arange(1, m + 1, dtype=float)
        return np.sqrt(2.0 / n) * np.cos(np.pi * f[None, :] * (i[:, None] + 0.5) / n)
    cols = []
    f = 1
    while len(cols) < m:
        c = np.cos(2 * np.pi * f * i / n)
        cols.append(c / np.linalg.norm(c))
        if len(cols) < m and 2 * f != n:
            s = np.sin(2 * np.pi * f * i / n)
            cols.append(s / np.linalg.norm(s))
        f += 1
    return np.column_stack(cols)


def subspace_alignment(U: ArrayLike, F: ArrayLike) -> float:
    """Mean squared cosine of the principal angles between the column spaces of ``U`` and ``F``.

    Basis-independent; 1 iff they coincide, 0 iff orthogonal, ``m / (n - 1)`` on average by chance.

    Parameters
    ----------
    U, F : (n, m) array_like, full-rank bases

    Returns
    -------
    float

    Examples
    --------
    >>> round(subspace_alignment(np.eye(3)[:, :2], np.eye(3)[:, :2] @ [[2.0, 1.0], [0.0, 1.0]]), 6)
    1.0
    """
    U = check_matrix(U, "U")
    F = check_matrix(F, "F")
    if U.shape != F.shape:
        raise ValueError(f"U and F must have the same shape (n x m), got {U.shape} and {F.shape}")
    Qu, Ru = np.linalg.qr(U)
    Qf, Rf = np.linalg.qr(F)
    for name, R in (("U", Ru), ("F", Rf)):
        if np.min(np.abs(np.diag(R))) <= 1e-12 * max(np.max(np.abs(np.diag(R))), 1e-300):
            raise ValueError(f"the columns of {name} are linearly dependent; pass a full-rank n x m matrix")
    return float(np.linalg.norm(Qu.T @ Qf) ** 2 / U.shape[1])


def fourier_alignment(D: ArrayLike, m: int, *, kind: str = "dct") -> float:
    """``subspace_alignment`` of the top-``m`` classical MDS eigenvectors of ``D`` with ``fourier_basis(n, m, kind)``.

    Parameters
    ----------
    D : (n, n) array_like
    m : int
        ``1 <= m <= n - 1`` (for ``"dft"`` an even ``m`` compares whole sine/cosine pairs).
    kind : {"dct", "dft"}, default "dct"

    Returns
    -------
    float

    Examples
    --------
    >>> from posgeom.geometry import hellinger_distances
    >>> round(fourier_alignment(hellinger_distances(shift_equivariant_distributions(8, cyclic=True)), 2, kind="dft"), 3)
    1.0
    """
    result = classical_mds(D)
    n = result.eigenvectors.shape[0]
    m = check_positive_int(m, "m")
    if m > n - 1:
        raise ValueError(f"m={m} exceeds n - 1 = {n - 1}")
    return subspace_alignment(result.eigenvectors[:, :m], fourier_basis(n, m, kind=kind))
