"""The three conditions of Theorem 4 (positional separation) computed from data: :func:`non_stationarity`,
:func:`order_sensitivity` (from :func:`multiset_bound` and :func:`sequence_bound`), :func:`non_degeneracy`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_positive_int, check_rng
from ..corpus.counts import position_counts, position_distributions
from ..geometry.hellinger import hellinger_distances
from ._checks import check_ids, check_labels

__all__ = ["non_stationarity", "multiset_bound", "sequence_bound", "order_sensitivity", "non_degeneracy"]


@dataclass(frozen=True)
class NonStationarity:
    """Result of :func:`~posgeom.nn.non_stationarity`.

    Attributes
    ----------
    distances, floor : (n, n) arrays
        Plug-in Hellinger distances between the positions' empirical laws; the permutation null's ``1 - alpha``
        quantile per pair.
    p_values, distinct : (n, n) arrays
        Permutation p-values, and ``p_values <= alpha`` off the diagonal.
    alpha : float

    Examples
    --------
    >>> non_stationarity(np.array([[0, 1]] * 20), 2, rng=0, n_permutations=99).fraction_distinct
    1.0
    """
    distances: np.ndarray
    floor: np.ndarray
    p_values: np.ndarray
    distinct: np.ndarray
    alpha: float

    @property
    def fraction_distinct(self) -> float:
        """Fraction of pairs ``i < j`` told apart."""
        iu = np.triu_indices(self.distinct.shape[0], k=1)
        return float(self.distinct[iu].mean())


def non_stationarity(X: ArrayLike, vocab_size: int, *, rng: int | np.random.Generator, n_permutations: int = 200,
                     alpha: float = 0.05, permutation: str = "pooled") -> NonStationarity:
    """Test, for every pair of positions, whether ``mu_i != mu_j`` against a permutation floor.

    Parameters
    ----------
    X, vocab_size : (N, n) int array, int
    rng : int or numpy.random.Generator
    n_permutations, alpha : int, float
    permutation : {"pooled", "within"}, default "pooled"
        Re-split the ``2N`` tokens at ``i`` and ``j``, or exchange each sequence's pair with probability 1/2
        (exact for dependent pairs, as on real text).

    Returns
    -------
    NonStationarity

    Examples
    --------
    >>> X = np.array([[0, 1]] * 20)
    >>> bool(non_stationarity(X, 2, rng=0, n_permutations=99, permutation="within").distinct[0, 1])
    True
    """
    X = check_ids(X)
    V = check_positive_int(vocab_size, "vocab_size")
    if X.max() >= V:
        raise ValueError(f"token id {int(X.max())} is outside the vocabulary [0, {V})")
    B = check_positive_int(n_permutations, "n_permutations")
    rng = check_rng(rng)
    alpha = float(alpha)
    if permutation not in ("pooled", "within"):
        raise ValueError(f"permutation must be 'pooled' or 'within', got {permutation!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    N, n = X.shape
    if n < 2:
        raise ValueError("non-stationarity needs at least two positions")
    D = hellinger_distances(position_distributions(position_counts(X, n, V)))
    floor = np.zeros((n, n))
    p_values = np.ones((n, n))
    rows = np.arange(B)[:, None] * V
    for i in range(n):
        for j in range(i + 1, n):
            if permutation == "pooled":
                pooled = np.concatenate([X[:, i], X[:, j]])
                shuffled = pooled[np.argsort(rng.random((B, 2 * N)), axis=1)]
                first, second = shuffled[:, :N], shuffled[:, N:]
            else:
                swap = rng.random((B, N)) < 0.5
                first, second = np.where(swap, X[:, j], X[:, i]), np.where(swap, X[:, i], X[:, j])
            a = np.bincount((rows + first).ravel(), minlength=B * V).reshape(B, V) / N
            b = np.bincount((rows + second).ravel(), minlength=B * V).reshape(B, V) / N
            null = np.sqrt(np.clip(1.0 - np.sqrt(a * b).sum(axis=1), 0.0, 1.0))
            floor[i, j] = floor[j, i] = np.quantile(null, 1 - alpha)
            p_values[i, j] = p_values[j, i] = (1 + np.sum(null >= D[i, j] - 1e-12)) / (1 + B)
    distinct = p_values <= alpha
    np.fill_diagonal(distinct, False)
    return NonStationarity(D, floor, p_values, distinct, alpha)


def _group_bound(keys: np.ndarray, y: np.ndarray) -> float:
    """Best accuracy of any function of the rows of ``keys``: majority counts summed over groups, over N."""
    _, group = np.unique(keys, axis=0, return_inverse=True)
    group = group.ravel()
    _, label = np.unique(y, return_inverse=True)
    table = np.zeros((group.max() + 1, label.max() + 1), dtype=np.int64)
    np.add.at(table, (group, label.ravel()), 1)
    return float(table.max(axis=1).sum() / y.size)


def multiset_bound(X: ArrayLike, y: ArrayLike) -> float:
    """The best accuracy any function of the multiset of tokens reaches on ``(X, y)``.

    Parameters
    ----------
    X, y : (N, L) and (N,) int arrays

    Returns
    -------
    float

    Examples
    --------
    >>> multiset_bound(np.array([[0, 1, 2], [1, 0, 2], [3, 3, 2]]), np.array([1, 0, 1]))
    0.6666666666666666
    """
    X = check_ids(X)
    return _group_bound(np.sort(X, axis=1), check_labels(y, X.shape[0]))


def sequence_bound(X: ArrayLike, y: ArrayLike) -> float:
    """The best accuracy any function of the sequence reaches on ``(X, y)`` (1 unless equal sequences disagree).

    Parameters
    ----------
    X, y : (N, L) and (N,) int arrays

    Returns
    -------
    float

    Examples
    --------
    >>> sequence_bound(np.array([[0, 1], [1, 0], [1, 0]]), np.array([1, 0, 1]))
    0.6666666666666666
    """
    X = check_ids(X)
    return _group_bound(X, check_labels(y, X.shape[0]))


@dataclass(frozen=True)
class OrderSensitivity:
    """Result of :func:`~posgeom.nn.order_sensitivity`: the two bounds, their ``gap``, whether it ``holds`` (> 0).

    Attributes
    ----------
    sequence_bound, multiset_bound : float
        Best accuracy of any function of the sequence, of the multiset of tokens.

    Examples
    --------
    >>> OrderSensitivity(sequence_bound=1.0, multiset_bound=0.5).gap
    0.5
    """
    sequence_bound: float
    multiset_bound: float

    @property
    def gap(self) -> float:
        """``sequence_bound - multiset_bound``, the accuracy only order can buy."""
        return self.sequence_bound - self.multiset_bound

    @property
    def holds(self) -> bool:
        """Whether the gap is positive."""
        return self.gap > 0


def order_sensitivity(X: ArrayLike, y: ArrayLike) -> OrderSensitivity:
    """Whether the labels depend on token order: the sequence bound exceeds the multiset bound.

    Parameters
    ----------
    X, y : (N, L) and (N,) int arrays

    Returns
    -------
    OrderSensitivity

    Examples
    --------
    >>> order_sensitivity(np.array([[0, 1], [1, 0]]), np.array([1, 0])).holds
    True
    """
    return OrderSensitivity(sequence_bound(X, y), multiset_bound(X, y))


@dataclass(frozen=True)
class NonDegeneracy:
    """Result of :func:`~posgeom.nn.non_degeneracy`.

    Attributes
    ----------
    n_classes, min_class_fraction : int, float (the labels that occur; the share of the rarest)
    constant_positions : tuple of int, the positions holding the same token in every sequence

    Examples
    --------
    >>> NonDegeneracy(n_classes=2, min_class_fraction=0.5, constant_positions=()).holds
    True
    """
    n_classes: int
    min_class_fraction: float
    constant_positions: tuple[int, ...]

    @property
    def holds(self) -> bool:
        """At least two labels and no constant position."""
        return self.n_classes >= 2 and not self.constant_positions


def non_degeneracy(X: ArrayLike, y: ArrayLike) -> NonDegeneracy:
    """Non-degeneracy read from data: at least two labels occur and no position is constant.

    Parameters
    ----------
    X, y : (N, L) and (N,) int arrays

    Returns
    -------
    NonDegeneracy

    Examples
    --------
    >>> non_degeneracy(np.array([[5, 0, 1], [5, 1, 0]]), np.array([1, 0])).constant_positions
    (0,)
    """
    X = check_ids(X)
    y = check_labels(y, X.shape[0])
    _, counts = np.unique(y, return_counts=True)
    constant = tuple(int(i) for i in np.flatnonzero(np.all(X == X[:1], axis=0)))
    return NonDegeneracy(int(counts.size), float(counts.min() / y.size), constant)
