"""How much each extra dimension buys: :func:`stress_by_rank`, stress and strain of MDS against its rank.

Strain ``||B - X X^T||_F / ||B||_F`` (``B = -1/2 J D^2 J``, ``X`` centred) is what classical MDS minimises
(Eckart-Young); stress (:mod:`posgeom.stress.core`) is what SMACOF minimises locally.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_distance_matrix, check_positive_int
from ..geometry.mds import classical_mds, double_centered_gram
from ._smacof import smacof_encoding
from .core import stress_of_encoding as _stress

__all__ = ["stress_by_rank"]


_METHODS = ("classical", "smacof")


def _strain(X, D) -> float:
    """Relative strain ``||B - Xc Xc^T||_F / ||B||_F`` of a configuration ``X`` (n x r) against distances ``D``."""
    B = double_centered_gram(D)
    Xc = X - X.mean(axis=0)
    return float(np.linalg.norm(B - Xc @ Xc.T) / float(np.linalg.norm(B)))


@dataclass(frozen=True)
class RankCurve:
    """Stress and strain of the rank-``r`` configurations of one method (:func:`~posgeom.stress.stress_by_rank`).

    Attributes
    ----------
    method, ranks : str, (k,) int array
        ``"classical"`` or ``"smacof"``; the ranks ``r``, in the order requested.
    stress_raw, stress_optimal, strain : (k,) arrays
        Raw stress, scale-optimal stress and relative strain.
    embeddings : tuple of arrays, the configurations, one (n x r) array per rank

    Examples
    --------
    >>> stress_by_rank(np.abs(np.subtract.outer(np.arange(4.0), np.arange(4.0))), [1], rng=0).stress_raw.round(6)
    array([0.])
    """
    method: str
    ranks: np.ndarray
    stress_raw: np.ndarray
    stress_optimal: np.ndarray
    strain: np.ndarray
    embeddings: tuple


def stress_by_rank(D: ArrayLike, ranks: Sequence[int], *, method: str = "classical",
                   rng: int | np.random.Generator, n_init: int = 1, tol: float | None = None) -> RankCurve:
    """Stress (raw and scale-optimal) and strain of the rank-``r`` configurations, for every ``r`` in ``ranks``.

    Parameters
    ----------
    D : (n, n) array
    ranks : iterable of int
        Ranks ``r >= 1``: at most the number of positive eigenvalues of ``B`` (classical) or ``n - 1`` (SMACOF).
    method : {"classical", "smacof"}
        Classical MDS (``X_r = U_r L_r^{1/2}``) or SMACOF started from it (plus ``n_init - 1`` random starts).
    rng : int or numpy.random.Generator, for the random starts of ``"smacof"`` (``"classical"`` ignores it)
    n_init, tol : int, float, optional
        SMACOF starts per rank; the eigenvalue tolerance of classical MDS.

    Returns
    -------
    RankCurve

    Examples
    --------
    >>> from posgeom.geometry import hellinger_distances, shift_equivariant_distributions
    >>> curve = stress_by_rank(hellinger_distances(shift_equivariant_distributions(6)), [1, 2, 3], rng=0)
    >>> bool(np.all(np.diff(curve.strain) < 0))
    True
    """
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    D = check_distance_matrix(D)
    ranks = np.asarray([check_positive_int(r, "each rank") for r in np.atleast_1d(np.asarray(ranks)).tolist()])
    if ranks.size == 0:
        raise ValueError("ranks is empty; pass at least one rank, e.g. range(1, 11)")
    embeddings = []
    if method == "classical":
        full = classical_mds(D, tol=tol)
        if ranks.max() > full.rank:
            raise ValueError(f"rank {int(ranks.max())} exceeds the number of positive eigenvalues of B ({full.rank}, "
                             f"tol={full.tol:.2e}); classical MDS has no real dimension beyond it")
        for r in ranks:
            embeddings.append(full.embedding[:, :r])
    else:
        for r in ranks:
            embeddings.append(smacof_encoding(D, int(r), rng=rng, n_init=n_init).embedding)
    return RankCurve(method=method,
                     ranks=ranks,
                     stress_raw=np.array([_stress(X, D, scale="raw") for X in embeddings]),
                     stress_optimal=np.array([_stress(X, D, scale="optimal") for X in embeddings]),
                     strain=np.array([_strain(X, D) for X in embeddings]),
                     embeddings=tuple(embeddings))
