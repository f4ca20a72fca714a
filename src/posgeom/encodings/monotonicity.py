"""Monotonicity of an encoding: do positions closer in the sequence get closer vectors?

The **monotonicity conjecture** (Appendix A of :cite:`cirrincione2026`): learned position embeddings tend to satisfy
``|i - j| < |i - k|  =>  ||p_i - p_j|| < ||p_i - p_k||``. Conventions (used everywhere in the book):

* **Pairs**: the unordered pairs ``i < j`` of the first ``first`` positions (default all), optionally only those
  with lag ``j - i <= max_lag``.
* **Rank correlations**: Spearman's ``rho`` and Kendall's ``tau_b`` (ties by average ranks) of ``D_ij`` with the lag;
  the pairs share positions, so scipy's p-values do not apply: use :func:`~posgeom.encodings.permutation_test`.
* **Triple score**: for an anchor ``i`` and ``j, k`` on the same side of ``i`` with ``|i - j| < |i - k|``, the triple
  is monotone when ``D_ij <= D_ik`` (ties count as monotone); a position scores its share of monotone triples, the
  overall score pools all triples; ``1``: perfectly monotone, about ``0.5``: no relation.
* **Input**: an encoding ``P`` (rows = positions, ``kind="encoding"``, Euclidean distances) or a distance matrix
  (``kind="distances"``). Constant distances raise a ValueError rather than returning NaN.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.stats import kendalltau

from .._validation import check_distance_matrix, check_matrix, check_positive_int, check_rng
from ..geometry.euclidean import pairwise_distances
from ..inference import PermutationTest, permutation_p_value, spearman
from ..inference._correlation import pearson_rows, rank

__all__ = ["rank_correlations", "triple_monotonicity", "permutation_test"]

_KINDS = ("encoding", "distances")
_METHODS = ("spearman", "kendall")


@dataclass(frozen=True)
class RankCorrelation:
    """Rank correlations of position distances with the lag (:func:`~posgeom.encodings.rank_correlations`).

    Attributes
    ----------
    spearman, kendall : float
        Spearman's ``rho`` and Kendall's ``tau_b`` of ``D_ij`` with ``j - i`` (``kendall`` NaN if not requested).
    n_positions, n_pairs : int
    max_lag : int or None, the largest lag used (``None``: all lags)

    Examples
    --------
    >>> rank_correlations(np.arange(5.0)[:, None]).n_pairs
    10
    """
    spearman: float
    kendall: float
    n_positions: int
    n_pairs: int
    max_lag: int | None


@dataclass(frozen=True)
class TripleMonotonicity:
    """Fractions of monotone triples (:func:`~posgeom.encodings.triple_monotonicity`).

    Attributes
    ----------
    per_position : (n,) float array, the score of each anchor position, in ``[0, 1]``
    overall : float, the fraction of monotone triples pooled over all anchors
    n_triples : int

    Examples
    --------
    >>> triple_monotonicity(np.arange(4.0)[:, None]).n_triples
    8
    """
    per_position: np.ndarray
    overall: float
    n_triples: int


def _check_choice(value, name: str, choices: tuple[str, ...]) -> str:
    """``value`` if it is one of ``choices``, else a ValueError naming ``name``."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


def _position_distances(X, *, kind: str = "encoding", first: int | None = None) -> np.ndarray:
    """The (k x k) distance matrix of the first ``k`` positions of an encoding or distance matrix."""
    kind = _check_choice(kind, "kind", _KINDS)
    if kind == "encoding":
        X = check_matrix(X, "X", min_rows=2)
    else:
        X = check_distance_matrix(X, "X")
    n = X.shape[0]
    if first is not None:
        first = check_positive_int(first, "first", minimum=2)
        if first > n:
            raise ValueError(f"first={first} exceeds the number of positions n={n}; use first <= {n}")
        X = X[:first] if kind == "encoding" else X[:first, :first]
    return pairwise_distances(X) if kind == "encoding" else X


def _pairs(n: int, max_lag: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``i < j`` of ``n`` positions, only those with lag ``j - i <= max_lag`` if given."""
    i, j = np.triu_indices(n, k=1)
    if max_lag is None:
        return i, j
    max_lag = check_positive_int(max_lag, "max_lag", minimum=2)
    if max_lag > n - 1:
        raise ValueError(f"max_lag={max_lag} exceeds the largest lag {n - 1}; drop it or lower it")
    keep = (j - i) <= max_lag
    return i[keep], j[keep]


def rank_correlations(X: ArrayLike, *, kind: str = "encoding", first: int | None = None, max_lag: int | None = None,
                      kendall: bool = True) -> RankCorrelation:
    """Spearman and Kendall correlations of the position distances ``D_ij`` with the lag ``j - i``.

    Parameters
    ----------
    X : (n, d) encoding or (n, n) distance matrix
    kind : {"encoding", "distances"}, default "encoding"
    first : int, optional (use positions ``0..first-1`` only)
    max_lag : int, optional (use pairs with lag ``<= max_lag`` only)
    kendall : bool, default True (also Kendall's ``tau_b``, else NaN)

    Returns
    -------
    RankCorrelation

    Examples
    --------
    >>> rank_correlations(np.arange(5.0)[:, None]).spearman  # points on a line: perfectly monotone
    1.0
    """
    D = _position_distances(X, kind=kind, first=first)
    i, j = _pairs(D.shape[0], max_lag)
    d, lags = D[i, j], j - i
    if np.ptp(d) <= 1e-12 * max(1.0, float(np.max(np.abs(d)))):
        raise ValueError("all pair distances are equal: the rank correlation with the lag is undefined (0/0). The "
                         "encoding carries no positional geometry (e.g. identical rows, or a regular simplex)")
    tau = float(kendalltau(d, lags).statistic) if kendall else float("nan")
    return RankCorrelation(spearman=spearman(d, lags), kendall=tau, n_positions=D.shape[0], n_pairs=int(d.size),
                           max_lag=max_lag)


def triple_monotonicity(X: ArrayLike, *, kind: str = "encoding", first: int | None = None) -> TripleMonotonicity:
    """Per-position and overall fractions of monotone triples (the module's convention; ``O(n^3)``).

    Parameters
    ----------
    X, kind, first
        As in :func:`~posgeom.encodings.rank_correlations` (at least 3 positions).

    Returns
    -------
    TripleMonotonicity

    Examples
    --------
    >>> t = triple_monotonicity(np.array([[0.0], [1.0], [3.0], [2.0]]))  # position 3 lies between 1 and 2
    >>> t.per_position.round(3), round(t.overall, 3)
    (array([0.667, 0.   , 1.   , 1.   ]), 0.75)
    """
    D = _position_distances(X, kind=kind, first=first)
    n = D.shape[0]
    if n < 3:
        raise ValueError(f"triples need at least 3 positions, got {n}")
    good = np.zeros(n, dtype=np.int64)
    total = np.zeros(n, dtype=np.int64)
    for i in range(n):
        for side in (D[i, i + 1:], D[i, :i][::-1]):  # distances by increasing lag: pairs a < b with side[a] <= side[b]
            upper = np.triu(np.ones((side.size, side.size), dtype=bool), k=1)
            good[i] += np.count_nonzero((side[:, None] <= side[None, :]) & upper)
            total[i] += side.size * (side.size - 1) // 2
    per = good / total  # every anchor has >= 1 triple when n >= 3
    return TripleMonotonicity(per_position=per, overall=float(good.sum() / total.sum()), n_triples=int(total.sum()))


def permutation_test(X: ArrayLike, *, rng: int | np.random.Generator, n_permutations: int = 200,
                     method: str = "spearman", kind: str = "encoding", first: int | None = None,
                     max_lag: int | None = None) -> PermutationTest:
    """Is the encoding more monotone than the same vectors in a random positional order?

    The null is exchangeability of the positions considered (a uniformly random relabelling leaves the statistic's
    distribution unchanged), which respects the dependence between pairs that share a position.

    Parameters
    ----------
    X, kind, first, max_lag
        As in :func:`~posgeom.encodings.rank_correlations`.
    rng : int or numpy.random.Generator
    n_permutations : int, default 200
    method : {"spearman", "kendall"}, default "spearman"

    Returns
    -------
    posgeom.inference.PermutationTest, one-sided (``alternative="greater"``)

    Examples
    --------
    >>> round(permutation_test(np.arange(8.0)[:, None], rng=0, n_permutations=50).p_value, 4)
    0.0196
    """
    method = _check_choice(method, "method", _METHODS)
    rng = check_rng(rng)
    n_permutations = check_positive_int(n_permutations, "n_permutations")
    D = _position_distances(X, kind=kind, first=first)
    observed = rank_correlations(D, kind="distances", max_lag=max_lag, kendall=method == "kendall")
    statistic = observed.spearman if method == "spearman" else observed.kendall
    n = D.shape[0]
    i, j = _pairs(n, max_lag)
    lag_ranks = rank(j - i)
    null = np.empty(n_permutations)
    # All pairs: the permuted pair set is the same multiset, so its ranks are a permutation of the fixed ranks.
    full_ranks = None
    if method == "spearman" and max_lag is None:
        full_ranks = np.zeros((n, n))
        full_ranks[i, j] = rank(D[i, j])
        full_ranks = full_ranks + full_ranks.T
    for b in range(n_permutations):
        perm = rng.permutation(n)
        if full_ranks is not None:
            null[b] = pearson_rows(full_ranks[perm[i], perm[j]], lag_ranks)
            continue
        d = D[perm[i], perm[j]]
        if np.ptp(d) == 0:
            null[b] = 0.0
        elif method == "spearman":
            null[b] = pearson_rows(rank(d), lag_ranks)
        else:
            null[b] = float(kendalltau(d, j - i).statistic)
    return PermutationTest(statistic=statistic, null=null, p_value=permutation_p_value(statistic, null),
                           alternative="greater", exact=False)
