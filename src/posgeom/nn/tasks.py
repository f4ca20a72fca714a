"""Labelled synthetic tasks of the chapters, as :class:`TaskData`: :func:`order_task` ("a before b"),
:func:`centre_task` ("a in the middle"), :func:`probe_data` (absolute position), :func:`transposition_task` (a pair
exchanged) with its laws :func:`pair_distributions`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_positive_int, check_rng
from ..corpus.synthetic import synthetic_corpus
from ._checks import check_ids, check_labels

__all__ = ["order_task", "centre_task", "probe_data", "pair_distributions", "transposition_task"]


@dataclass(frozen=True)
class TaskData:
    """Equal-length token id sequences with one label each: the data every trainer in :mod:`posgeom.nn` takes.

    Attributes
    ----------
    X, y, padding_mask : (N, L) int, (N,) int and (N, L) bool arrays
        Token ids, one sequence per row; class labels; optionally True at padding (a real token in every row).

    Examples
    --------
    >>> TaskData(np.array([[2, 0, 1], [2, 1, 0]]), np.array([1, 0])).vocab_size
    3
    """
    X: np.ndarray
    y: np.ndarray
    padding_mask: np.ndarray | None = None

    def __post_init__(self):
        X = check_ids(self.X)
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", check_labels(self.y, X.shape[0]))
        if self.padding_mask is not None:
            mask = np.asarray(self.padding_mask)
            if mask.dtype != bool or mask.shape != X.shape:
                raise ValueError(f"padding_mask must be a bool array of shape {X.shape}")
            if mask.all(axis=1).any():
                raise ValueError("a sequence is padding only; every sequence needs at least one real token")
            object.__setattr__(self, "padding_mask", mask)

    def __len__(self) -> int:
        return int(self.X.shape[0])

    @property
    def length(self) -> int:
        """The padded sequence length ``L``."""
        return int(self.X.shape[1])

    @property
    def vocab_size(self) -> int:
        """``max id + 1``."""
        return int(self.X.max()) + 1


def _background(n_sequences, n_positions, vocab_size, rng, regime):
    """Background tokens in ``[2, vocab_size)`` (ids 0 and 1 are the markers)."""
    if regime == "uniform":
        return rng.integers(2, vocab_size, size=(n_sequences, n_positions))
    return synthetic_corpus(n_sequences, n_positions, vocab_size - 2, rng=rng, regime=regime) + 2


def _check_task_args(n_pairs, n_positions, vocab_size, rng):
    """The checked ``(n_pairs, n_positions, vocab_size, rng)`` of a paired task."""
    n_pairs = check_positive_int(n_pairs, "n_pairs")
    n_positions = check_positive_int(n_positions, "n_positions", minimum=3)
    vocab_size = check_positive_int(vocab_size, "vocab_size", minimum=4)
    return n_pairs, n_positions, vocab_size, check_rng(rng)


def order_task(n_pairs: int, n_positions: int, vocab_size: int, *, rng: int | np.random.Generator,
               regime: str = "smooth") -> TaskData:
    """Label 1 iff token 0 precedes token 1; each sequence's partner swaps the two (same multiset).

    Parameters
    ----------
    n_pairs, n_positions, vocab_size : int
        Base sequences (the result holds them, then their partners); length >= 3; ids >= 4 (markers 0 and 1).
    rng, regime : int or numpy.random.Generator, {"smooth", "abrupt", "stationary", "uniform"}
        The background: ``posgeom.corpus.synthetic_corpus`` in that regime, or i.i.d. uniform.

    Returns
    -------
    TaskData

    Examples
    --------
    >>> order_task(3, 6, 5, rng=0, regime="uniform").y
    array([0, 0, 1, 1, 1, 0])
    """
    n_pairs, n, vocab_size, rng = _check_task_args(n_pairs, n_positions, vocab_size, rng)
    X = _background(n_pairs, n, vocab_size, rng, regime)
    for row in X:
        i, j = rng.choice(n, size=2, replace=False)
        row[i], row[j] = 0, 1
    swapped = np.where(X == 0, 1, np.where(X == 1, 0, X))
    X = np.concatenate([X, swapped])
    y = (np.argmax(X == 0, axis=1) < np.argmax(X == 1, axis=1)).astype(np.int64)
    return TaskData(X, y)


def centre_task(n_pairs: int, n_positions: int, vocab_size: int, *, rng: int | np.random.Generator,
                regime: str = "smooth") -> TaskData:
    """Label 1 iff token 0 sits at ``L/4 <= i < 3L/4``; the partner moves it to an edge (same multiset).

    Parameters
    ----------
    n_pairs, n_positions, vocab_size, rng, regime
        As in :func:`order_task`; ``n_positions`` a multiple of 4.

    Returns
    -------
    TaskData, bases (label 1) then partners (label 0)

    Examples
    --------
    >>> centre_task(2, 8, 10, rng=0).y
    array([1, 1, 0, 0])
    """
    n_pairs, n, vocab_size, rng = _check_task_args(n_pairs, n_positions, vocab_size, rng)
    if n % 4:
        raise ValueError(f"n_positions must be a multiple of 4 (quarters), got {n}")
    centre = np.arange(n // 4, 3 * n // 4)
    edges = np.setdiff1d(np.arange(n), centre)
    X = _background(n_pairs, n, vocab_size, rng, regime)
    partners = X.copy()
    for row, partner in zip(X, partners):
        i, j = int(rng.choice(centre)), int(rng.choice(edges))
        row[i] = 0
        partner[:] = row
        partner[i], partner[j] = row[j], 0
    X = np.concatenate([X, partners])
    a = np.argmax(X == 0, axis=1)
    y = ((a >= n // 4) & (a < 3 * n // 4)).astype(np.int64)
    return TaskData(X, y)


def probe_data(n_sequences: int, n_positions: int, *, bos: int,
               rng: int | np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Sequences ``[bos, x_1, ..., x_{L-1}]``, ``x_i`` uniform on ``0..bos-1``, token ``i`` labelled ``i``.

    Parameters
    ----------
    n_sequences, n_positions, bos : int
    rng : int or numpy.random.Generator

    Returns
    -------
    X, y : (N, L) int64 arrays

    Examples
    --------
    >>> probe_data(1, 5, bos=4, rng=0)[1]
    array([[0, 1, 2, 3, 4]])
    """
    N = check_positive_int(n_sequences, "n_sequences")
    L = check_positive_int(n_positions, "n_positions", minimum=2)
    bos = check_positive_int(bos, "bos")
    rng = check_rng(rng)
    X = np.concatenate([np.full((N, 1), bos), rng.integers(0, bos, size=(N, L - 1))], axis=1).astype(np.int64)
    return X, np.tile(np.arange(L, dtype=np.int64), (N, 1))


def pair_distributions(vocab_size: int, shift: float) -> tuple[np.ndarray, np.ndarray]:
    """The laws ``(1 - s) u + s a`` and ``(1 - s) u + s b``: ``u`` uniform, ``a``/``b`` uniform on the lower/upper half.

    Parameters
    ----------
    vocab_size, shift : int, float
        ``V`` (even) and ``s`` in ``[0, 1]`` (0: equal laws, 1: disjoint ones).

    Returns
    -------
    mu_0, mu_1 : (V,) arrays

    Examples
    --------
    >>> pair_distributions(4, 1.0)[1]
    array([0. , 0. , 0.5, 0.5])
    """
    V = check_positive_int(vocab_size, "vocab_size", minimum=2)
    if V % 2:
        raise ValueError(f"vocab_size must be even (two halves), got {V}")
    s = float(shift)
    if not 0.0 <= s <= 1.0:
        raise ValueError(f"shift must lie in [0, 1], got {s}")
    u = np.full(V, 1.0 / V)
    a = np.r_[np.full(V // 2, 2.0 / V), np.zeros(V // 2)]
    return (1 - s) * u + s * a, (1 - s) * u + s * a[::-1]


def transposition_task(n_sequences: int, *, shift: float, vocab_size: int = 8,
                       rng: int | np.random.Generator) -> TaskData:
    """Length-4 sequences ``x_0 ~ mu_0``, ``x_1 ~ mu_1``, ``x_2, x_3`` uniform; a coin exchanges ``x_0, x_1`` (label 0).

    Parameters
    ----------
    n_sequences, vocab_size : int
    shift : float in ``[0, 1]``, the pair's non-stationarity (:func:`pair_distributions`)
    rng : int or numpy.random.Generator

    Returns
    -------
    TaskData

    Examples
    --------
    >>> transposition_task(6, shift=1.0, vocab_size=4, rng=0).X.shape
    (6, 4)
    """
    N = check_positive_int(n_sequences, "n_sequences")
    mu0, mu1 = pair_distributions(vocab_size, shift)
    V = mu0.size
    rng = check_rng(rng)
    X = np.column_stack([rng.choice(V, size=N, p=mu0), rng.choice(V, size=N, p=mu1),
                         rng.integers(V, size=(N, 2))]).astype(np.int64)
    y = rng.integers(2, size=N).astype(np.int64)
    swap = y == 0
    X[swap, 0], X[swap, 1] = X[swap, 1], X[swap, 0].copy()
    return TaskData(X, y)
