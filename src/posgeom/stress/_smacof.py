"""Private (behind ``stress_by_rank(..., method="smacof")``): SMACOF, a configuration that minimises raw stress."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_distance_matrix, check_positive_int, check_rng
from ..geometry.euclidean import pairwise_distances
from ..geometry.mds import classical_mds
from .core import stress_of_distances

__all__ = ["smacof_encoding"]

MAX_ITER, EPS = 3000, 1e-8  # scikit-learn's iteration cap and tolerance, explicit


@dataclass(frozen=True)
class SmacofResult:
    """The best ``embedding`` (centred), its raw ``stress``, ``n_iter``, ``converged``, ``start``, all ``stresses``."""
    embedding: np.ndarray
    stress: float
    n_iter: int
    converged: bool
    start: str
    stresses: tuple


def smacof_encoding(D: ArrayLike, rank: int, *, rng: int | np.random.Generator, n_init: int = 4) -> SmacofResult:
    """Rank-``rank`` metric SMACOF (scikit-learn's) from the classical start (missing columns: small noise) and
    ``n_init - 1`` Gaussian ones at the RMS scale of ``D``, the best by raw stress kept."""
    from sklearn.manifold import smacof  # imported here: scikit-learn is only needed for this comparison
    D = check_distance_matrix(D)
    n = D.shape[0]
    rank = check_positive_int(rank, "rank")
    if rank > n - 1:
        raise ValueError(f"rank={rank} is more than n - 1 = {n - 1} dimensions, which n points never need")
    rng = check_rng(rng)
    n_init = check_positive_int(n_init, "n_init")
    iu = np.triu_indices(n, k=1)
    denom = float(np.sum(D[iu] ** 2))
    if denom == 0:
        raise ValueError("D is zero for every pair of positions: there is nothing to embed and stress is undefined")
    rms = np.sqrt(denom / len(iu[0]))
    X0 = classical_mds(D).embedding[:, :rank]
    if X0.shape[1] < rank:
        pad = 1e-3 * rms * rng.standard_normal((n, rank - X0.shape[1]))
        X0 = np.hstack([X0, pad - pad.mean(axis=0)])
    starts = [("classical", X0)]
    while len(starts) < n_init:
        starts.append((f"random-{len(starts)}", rms / np.sqrt(2.0) * rng.standard_normal((n, rank))))
    best, stresses = None, []
    for name, X0 in starts:
        X, _, n_iter = smacof(D, metric=True, n_components=rank, init=X0, n_init=1, n_jobs=None, max_iter=MAX_ITER,
                              verbose=0, eps=EPS, random_state=None, return_n_iter=True, normalized_stress=False)
        X = X - X.mean(axis=0)
        s = stress_of_distances(pairwise_distances(X), D)  # the paper's raw stress, one formula for the book
        stresses.append(s)
        if best is None or s < best[1]:
            best = (X, s, int(n_iter), name)
    return SmacofResult(best[0], best[1], best[2], best[2] < MAX_ITER, best[3], tuple(stresses))
