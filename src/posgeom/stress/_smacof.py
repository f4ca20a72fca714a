"""Private (behind ``stress_by_rank(..., method="smacof")``). SMACOF: a configuration that minimises raw stress.

Classical MDS (:func:`posgeom.classical_mds`) minimises *strain*, a least-squares fit of inner products; truncated to
rank ``r`` it is not the stress-optimal configuration. :func:`smacof_encoding` minimises the raw stress numerator
``sum_{i<j} (||x_i - x_j|| - D_ij)^2`` by majorisation (de Leeuw, 1977; scikit-learn's ``smacof``), started from
the classical solution and from random configurations, and scores every start with the one raw-stress formula of
:func:`posgeom.stress_of_distances`. Started from the classical solution, it never ends with higher stress.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_distance_matrix, check_positive_int, check_rng
from ..geometry.euclidean import pairwise_distances
from ..geometry.mds import classical_mds
from .core import stress_of_distances

__all__ = [
    "smacof_encoding",
]


@dataclass(frozen=True)
class SmacofResult:
    """Result of :func:`smacof_encoding`.

    Attributes
    ----------
    embedding : (n, rank) array
        The best configuration found (centred).
    stress : float
        Its raw stress (the paper's definition, normalised by ``sum_{i<j} D_ij^2``).
    n_iter : int
        Guttman iterations of the winning run.
    converged : bool
        Whether the winning run stopped on the tolerance rather than at ``max_iter``.
    start : str
        Which start won: ``"classical"`` or ``"random-<k>"``.
    stresses : tuple of float
        Raw stress reached from every start, in order (classical first).

    Examples
    --------
    >>> D = np.abs(np.subtract.outer(np.arange(4.0), np.arange(4.0)))
    >>> result = smacof_encoding(D, 1, rng=0, n_init=2)
    >>> result.start, round(result.stress, 6), len(result.stresses), result.embedding.shape
    ('classical', 0.0, 2, (4, 1))
    """

    embedding: np.ndarray
    stress: float
    n_iter: int
    converged: bool
    start: str
    stresses: tuple


def smacof_encoding(
    D: ArrayLike,
    rank: int,
    *,
    rng: int | np.random.Generator,
    n_init: int = 4,
    init: str = "classical",
    max_iter: int = 3000,
    eps: float = 1e-8,
) -> SmacofResult:
    """A stress-minimising configuration of rank ``rank`` by SMACOF (``sklearn.manifold.smacof``, metric).

    SMACOF (de Leeuw, 1977) minimises the raw stress numerator ``sum_{i<j} (||x_i - x_j|| - D_ij)^2`` by
    majorisation: each Guttman transform never increases it. Since the paper's stress divides by the constant
    ``sum_{i<j} D_ij^2``, SMACOF minimises the paper's raw stress directly; it is only guaranteed to find a *local*
    minimum, hence several starts.

    Starts (all deterministic given an int ``rng``):

    * ``init="classical"``: the first start is the rank-``rank`` classical MDS configuration (if ``B`` has fewer
      positive eigenvalues than ``rank``, the missing columns are filled with small seeded noise), so the result's
      stress is never above classical MDS's;
    * the remaining ``n_init - 1`` starts (all ``n_init`` with ``init="random"``) are Gaussian configurations with
      the RMS scale of ``D``, drawn from ``rng``.

    scikit-learn is called as ``smacof(D, metric=True, init=X0, n_init=1, normalized_stress=False, ...)`` with every
    argument explicit, so no default-change warning (the ``n_init`` and ``init`` defaults of ``MDS`` are changing in
    scikit-learn 1.8-1.10) is emitted.

    Parameters
    ----------
    D : (n, n) array
        Target distances.
    rank : int
        Dimension of the configuration, ``1 <= rank <= n - 1``.
    rng : int or numpy.random.Generator
        Seed of the random starts (required, keyword-only).
    n_init : int, default 4
        Number of starts, the best (lowest raw stress) wins.
    init : {"classical", "random"}, default "classical"
        Whether the first start is classical MDS or every start is random.
    max_iter : int, default 3000
        Maximum Guttman iterations per start.
    eps : float, default 1e-8
        scikit-learn's convergence tolerance: a run stops when one Guttman step lowers the stress by less than
        ``eps`` times the sum of squared configuration distances (tighter values change stress by about 1% at
        rank 6 on the book's corpora and cost several times more iterations).

    Returns
    -------
    SmacofResult
        The best configuration with its raw stress, iterations, convergence flag, winning start and all stresses.

    Raises
    ------
    ValueError
        ``rank > n - 1``, unknown ``init``, a negative or non-finite ``eps``, an invalid ``D``, or ``D`` zero
        everywhere.
    TypeError
        Non-integer ``rank``, ``n_init`` or ``max_iter``, or a missing ``rng``.

    Examples
    --------
    >>> from posgeom.geometry import hellinger_distances, shift_equivariant_distributions
    >>> D = hellinger_distances(shift_equivariant_distributions(6))
    >>> result = smacof_encoding(D, 2, rng=0, n_init=2)
    >>> result.embedding.shape, result.stress <= result.stresses[0]
    ((6, 2), True)
    """
    from sklearn.manifold import smacof  # imported here: scikit-learn is only needed for this comparison

    D = check_distance_matrix(D)
    n = D.shape[0]
    rank = check_positive_int(rank, "rank")
    if rank > n - 1:
        raise ValueError(f"rank={rank} is more than n - 1 = {n - 1} dimensions, which n points never need")
    rng = check_rng(rng)
    n_init = check_positive_int(n_init, "n_init")
    max_iter = check_positive_int(max_iter, "max_iter")
    if init not in ("classical", "random"):
        raise ValueError(f"init must be 'classical' or 'random', got {init!r}")
    if not (isinstance(eps, numbers.Real) and np.isfinite(eps) and eps >= 0):
        raise ValueError(f"eps must be a finite number >= 0, got {eps!r}")
    iu = np.triu_indices(n, k=1)
    denom = float(np.sum(D[iu] ** 2))
    if denom == 0:
        raise ValueError("D is zero for every pair of positions: there is nothing to embed and stress is undefined")
    rms = np.sqrt(denom / len(iu[0]))
    starts: list[tuple[str, np.ndarray]] = []
    if init == "classical":
        full = classical_mds(D)
        X0 = full.embedding[:, :rank]
        if X0.shape[1] < rank:
            pad = 1e-3 * rms * rng.standard_normal((n, rank - X0.shape[1]))
            X0 = np.hstack([X0, pad - pad.mean(axis=0)])
        starts.append(("classical", X0))
    while len(starts) < n_init:
        starts.append((f"random-{len(starts)}", rms / np.sqrt(2.0) * rng.standard_normal((n, rank))))
    best = None
    stresses = []
    for name, X0 in starts:
        X, _, n_iter = smacof(
            D, metric=True, n_components=rank, init=X0, n_init=1, n_jobs=None, max_iter=max_iter, verbose=0,
            eps=float(eps), random_state=None, return_n_iter=True, normalized_stress=False,
        )
        X = X - X.mean(axis=0)
        s = stress_of_distances(pairwise_distances(X), D)  # the paper's raw stress, one formula for the book
        stresses.append(s)
        if best is None or s < best[1]:
            best = (X, s, int(n_iter), name)
    return SmacofResult(
        embedding=best[0], stress=best[1], n_iter=best[2], converged=best[2] < max_iter, start=best[3],
        stresses=tuple(stresses),
    )
