"""Why shift-invariant encodings rank as they do: :func:`shift_invariant_decomposition` splits their scale-optimal
stress exactly, ``stress* = 1 - (1 - delta^2) c^2`` for any ``E_ij = g(|i - j|)`` (:class:`ShiftInvariantStress`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_distance_matrix

__all__ = ["shift_invariant_decomposition"]


@dataclass(frozen=True)
class ShiftInvariantStress:
    """The exact decomposition of a shift-invariant encoding's scale-optimal stress (see
    :func:`~posgeom.stress.shift_invariant_decomposition`).

    Attributes
    ----------
    defect : float
        ``delta = ||D - T(D)||_F / ||D||_F``, the target's shift-equivariance defect (``delta^2``: the floor of
        any shift-invariant encoding's scale-optimal stress).
    profile_cosine : float
        ``c``: cosine between the lag profiles of ``D`` and ``E``, weighted by the ``n - k`` pairs at lag ``k``.
    stress : float, ``1 - (1 - delta^2) c^2``

    Examples
    --------
    >>> ShiftInvariantStress(defect=0.5, profile_cosine=0.9, stress=0.3925).stress
    0.3925
    """
    defect: float
    profile_cosine: float
    stress: float


def shift_invariant_decomposition(E: ArrayLike, D: ArrayLike, *, atol: float = 1e-9) -> ShiftInvariantStress:
    """Split the scale-optimal stress of a shift-invariant encoding into shift and shape terms.

    If ``E_ij`` depends only on ``|i - j|``, then ``min_a stress(a E, D) = 1 - (1 - delta^2) c^2`` (``delta`` the
    shift-equivariance defect of ``D``, ``c`` the pair-weighted cosine of the lag profiles; proof in Chapter 7).

    Parameters
    ----------
    E, D : (n, n) arrays
        Induced distances of a shift-invariant encoding (its own defect ``<= atol``); target distances.
    atol : float, default 1e-9

    Returns
    -------
    ShiftInvariantStress

    Examples
    --------
    >>> from posgeom.stress import stress_of_distances
    >>> D = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]])
    >>> E = np.abs(np.subtract.outer(np.arange(3.0), np.arange(3.0)))  # ALiBi with slope 1
    >>> round(shift_invariant_decomposition(E, D).stress, 6), round(stress_of_distances(E, D, scale="optimal"), 6)
    (0.238095, 0.238095)
    """
    from ..geometry.shift import lag_profile, shift_equivariance_defect
    E = check_distance_matrix(E, "E")
    D = check_distance_matrix(D, "D")
    if E.shape != D.shape:
        raise ValueError(f"E and D must have the same shape, got {E.shape} and {D.shape}")
    if not np.any(E > 0):
        raise ValueError("E is zero everywhere: its profile has no direction (the cosine is 0/0)")
    e_defect = shift_equivariance_defect(E)
    if e_defect > atol:
        raise ValueError(f"E is not shift-invariant (its shift-equivariance defect is {e_defect:.2e} > atol={atol:g}); "
                         "the decomposition only holds when E_ij depends on |i - j| alone")
    n = D.shape[0]
    delta = shift_equivariance_defect(D)
    w = n - np.arange(1, n)
    f, g = lag_profile(D)[1:], lag_profile(E)[1:]
    c = float(np.sum(w * f * g) / np.sqrt(np.sum(w * f * f) * np.sum(w * g * g)))
    return ShiftInvariantStress(defect=delta, profile_cosine=c, stress=float(1.0 - (1.0 - delta**2) * c**2))
