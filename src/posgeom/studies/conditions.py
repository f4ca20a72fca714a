"""The three conditions of Theorem 4 (positional separation) as diagnostics computed from data.

The paper's summary (the book's only source, ``PAPER.md``) names the conditions -- *non-stationarity* (the ``mu_i``
differ), *order-sensitivity* of the task, *non-degeneracy* -- but not their exact form. The operational definitions
below are therefore **the book's own**; each docstring says what is measured.

* :func:`non_stationarity`: for every pair of positions, is the plug-in Hellinger distance between the empirical
  ``mu_i`` and ``mu_j`` larger than what sampling noise produces when ``mu_i = mu_j``? The noise floor is measured by
  a permutation test (pool the tokens seen at ``i`` and ``j``, re-split them at random, recompute the distance).
* :func:`order_sensitivity`: does the label depend on the order of the tokens, on this data set? Measured exactly as
  the gap between the best accuracy of *any* function of the sequence and the best accuracy of *any* function of the
  multiset of its tokens (:func:`multiset_bound`), both computed by majority vote over groups of identical inputs.
  :func:`label_flip_rate` measures the same property for a labelling function: how often a random permutation
  changes the label.
* :func:`non_degeneracy`: the data are not degenerate -- at least two labels occur, and every position takes at least
  two token values (a constant position carries no statistics to separate). This is the minimal reading the book can
  check from data; a model-side reading (the trained loss is sensitive to the positional vectors) is measured in the
  chapter on Theorem 4.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_positive_int, check_rng
from ..corpus.counts import position_counts, position_distributions
from ..geometry.hellinger import hellinger_distances

__all__ = [
    "NonStationarity",
    "non_stationarity",
    "multiset_bound",
    "sequence_bound",
    "OrderSensitivity",
    "order_sensitivity",
    "label_flip_rate",
    "NonDegeneracy",
    "non_degeneracy",
]


def _check_ids(X, name: str = "X") -> np.ndarray:
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (n_sequences, length) of token ids, got shape {X.shape}")
    if X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"{name} must hold at least one sequence of at least one token, got shape {X.shape}")
    if not np.issubdtype(X.dtype, np.integer):
        raise TypeError(f"{name} must hold integer token ids, got dtype {X.dtype}")
    if X.min() < 0:
        raise ValueError(f"{name} has negative token ids; ids must be >= 0")
    return X.astype(np.int64, copy=False)


def _check_labels(y, n: int) -> np.ndarray:
    y = np.asarray(y)
    if y.shape != (n,):
        raise ValueError(f"y must have shape ({n},) (one label per sequence), got {y.shape}")
    if not np.issubdtype(y.dtype, np.integer):
        raise TypeError(f"y must hold integer class labels, got dtype {y.dtype}")
    return y.astype(np.int64, copy=False)


@dataclass(frozen=True)
class NonStationarity:
    """Result of :func:`non_stationarity` (all matrices n x n, symmetric, zero diagonal).

    Attributes
    ----------
    distances : (n, n) float array
        Plug-in Hellinger distances between the empirical ``mu_i``.
    floor : (n, n) float array
        The ``1 - alpha`` quantile of the permutation distribution of the distance under ``mu_i = mu_j``.
    p_values : (n, n) float array
        Permutation p-values ``(1 + #{perm >= observed}) / (1 + n_permutations)`` (1 on the diagonal).
    distinct : (n, n) bool array
        ``p_values <= alpha`` off the diagonal: the pair's distributions are told apart at level ``alpha``
        (per pair, no multiplicity correction).
    alpha : float
        The level.

    Examples
    --------
    >>> distinct = np.array([[False, True, False], [True, False, False], [False, False, False]])
    >>> res = NonStationarity(np.zeros((3, 3)), np.zeros((3, 3)), np.ones((3, 3)), distinct, 0.05)
    >>> round(res.fraction_distinct, 4)  # one pair of three
    0.3333
    """

    distances: np.ndarray
    floor: np.ndarray
    p_values: np.ndarray
    distinct: np.ndarray
    alpha: float

    @property
    def fraction_distinct(self) -> float:
        """Fraction of pairs ``i < j`` whose distributions are told apart."""
        iu = np.triu_indices(self.distinct.shape[0], k=1)
        return float(self.distinct[iu].mean())


def non_stationarity(
    X, vocab_size: int, *, rng, n_permutations: int = 200, alpha: float = 0.05, permutation: str = "pooled"
) -> NonStationarity:
    """Test, for every pair of positions, whether ``mu_i != mu_j`` against the sampling-noise floor.

    Definition (the book's): positions ``i`` and ``j`` are *non-stationary* (distinct) when the plug-in Hellinger
    distance between the empirical distributions of the tokens at ``i`` and at ``j`` exceeds the ``1 - alpha``
    quantile of its permutation distribution: the distances obtained after pooling the ``2N`` tokens seen at ``i`` and
    ``j`` and splitting them at random into two groups of ``N``. Under ``mu_i = mu_j`` the split is exchangeable, so
    the test has level ``alpha`` exactly (up to the Monte-Carlo resolution ``1 / (n_permutations + 1)``).

    The pooled re-split treats the ``2N`` tokens as independent. On real text the two tokens of a pair come from one
    sequence and are dependent (neighbouring words), so ``permutation="within"`` re-randomises *within* sequences:
    each sequence's tokens at ``i`` and ``j`` are exchanged with probability 1/2, independently. Under the null
    hypothesis that ``(x_i, x_j)`` is exchangeable in every sequence (which implies ``mu_i = mu_j``) this keeps the
    dependence and the test is exact; it is the right test for paired data.

    Parameters
    ----------
    X : (N, n) int array
        Token ids, every sequence of length ``n`` (position ``i`` = column ``i``).
    vocab_size : int
        ``V``; ids must lie in ``[0, V)``.
    rng : int or numpy.random.Generator
        Seed of the random splits.
    n_permutations : int, default 200
    alpha : float, default 0.05
        Level of each pairwise test, in ``(0, 1)``.
    permutation : {"pooled", "within"}, default "pooled"
        Re-split the pooled tokens across sequences, or exchange the pair within each sequence.

    Returns
    -------
    NonStationarity

    Raises
    ------
    ValueError
        If ``permutation`` is not one of the two schemes, ``alpha`` is outside ``(0, 1)``, ``X`` has fewer than two
        positions or an id outside ``[0, V)``.
    TypeError
        If ``X`` does not hold integers or ``rng`` is neither a seed nor a generator.

    Examples
    --------
    >>> X = np.array([[0, 1]] * 20)  # position 0 always holds token 0, position 1 token 1
    >>> res = non_stationarity(X, 2, rng=0, n_permutations=99, permutation="within")
    >>> bool(res.distinct[0, 1])
    True
    """
    X = _check_ids(X)
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
    """Best accuracy of any function of ``keys`` (rows): sum over groups of the majority label count, over N."""
    _, group = np.unique(keys, axis=0, return_inverse=True)
    group = group.ravel()
    _, label = np.unique(y, return_inverse=True)
    table = np.zeros((group.max() + 1, label.max() + 1), dtype=np.int64)
    np.add.at(table, (group, label.ravel()), 1)
    return float(table.max(axis=1).sum() / y.size)


def multiset_bound(X, y) -> float:
    """The best training accuracy that any function of the *multiset* of tokens can reach on ``(X, y)``.

    Theorem 1 says a pooled Transformer without positions computes such a function, so no such model can exceed
    this number on this data. Computed exactly: group the sequences by their sorted tokens and predict each group's
    majority label (ties: any majority label gives the same count).

    Parameters
    ----------
    X : (N, L) int array
        Token ids, one sequence per row.
    y : (N,) int array
        Class labels.

    Returns
    -------
    float
        The accuracy, in ``(0, 1]``.

    Raises
    ------
    ValueError
        If ``X`` is not a non-empty 2-D array of non-negative ids or ``y`` does not hold one label per row.
    TypeError
        If ``X`` or ``y`` does not hold integers.

    Examples
    --------
    Two orderings of the same tokens with opposite labels: no function of the multiset gets both right.

    >>> multiset_bound(np.array([[0, 1, 2], [1, 0, 2], [3, 3, 2]]), np.array([1, 0, 1]))
    0.6666666666666666
    """
    X = _check_ids(X)
    y = _check_labels(y, X.shape[0])
    return _group_bound(np.sort(X, axis=1), y)


def sequence_bound(X, y) -> float:
    """The best training accuracy that any function of the sequence can reach on ``(X, y)``.

    It is 1 unless some identical sequences carry different labels; computed exactly, like :func:`multiset_bound`,
    by grouping identical sequences and predicting each group's majority label.

    Parameters
    ----------
    X : (N, L) int array
        Token ids, one sequence per row.
    y : (N,) int array
        Class labels.

    Returns
    -------
    float
        The accuracy, in ``(0, 1]``.

    Raises
    ------
    ValueError
        If ``X`` is not a non-empty 2-D array of non-negative ids or ``y`` does not hold one label per row.
    TypeError
        If ``X`` or ``y`` does not hold integers.

    Examples
    --------
    >>> sequence_bound(np.array([[0, 1], [1, 0], [1, 0]]), np.array([1, 0, 1]))  # [1, 0] carries both labels
    0.6666666666666666
    """
    X = _check_ids(X)
    y = _check_labels(y, X.shape[0])
    return _group_bound(X, y)


@dataclass(frozen=True)
class OrderSensitivity:
    """Result of :func:`order_sensitivity`: the two bounds and their gap (``> 0`` means order-sensitive).

    Attributes
    ----------
    sequence_bound : float
        Best accuracy of any function of the sequence (:func:`sequence_bound`).
    multiset_bound : float
        Best accuracy of any function of the multiset of tokens (:func:`multiset_bound`).

    Examples
    --------
    >>> res = OrderSensitivity(sequence_bound=1.0, multiset_bound=0.5)
    >>> res.gap, res.holds
    (0.5, True)
    """

    sequence_bound: float
    multiset_bound: float

    @property
    def gap(self) -> float:
        """The accuracy only order can buy: ``sequence_bound - multiset_bound`` (never negative)."""
        return self.sequence_bound - self.multiset_bound

    @property
    def holds(self) -> bool:
        """Whether the data are order-sensitive: the gap is positive."""
        return self.gap > 0


def order_sensitivity(X, y) -> OrderSensitivity:
    """Measure on data whether the labels depend on token order.

    Definition (the book's): a labelled data set is *order-sensitive* when the best accuracy of a function of the
    sequence exceeds the best accuracy of a function of the multiset of its tokens, i.e. some pair of sequences with
    the same tokens in a different order carries different labels. The gap is the accuracy that only order can buy.

    Parameters
    ----------
    X : (N, L) int array
        Token ids, one sequence per row.
    y : (N,) int array
        Class labels.

    Returns
    -------
    OrderSensitivity

    Raises
    ------
    ValueError
        If ``X`` is not a non-empty 2-D array of non-negative ids or ``y`` does not hold one label per row.
    TypeError
        If ``X`` or ``y`` does not hold integers.

    Examples
    --------
    >>> from posgeom.studies import order_task
    >>> data = order_task(50, 6, 6, rng=0, regime="uniform")
    >>> res = order_sensitivity(data.X, data.y)
    >>> res.sequence_bound, res.multiset_bound, res.holds
    (1.0, 0.5, True)
    """
    return OrderSensitivity(sequence_bound(X, y), multiset_bound(X, y))


def label_flip_rate(label_fn, X, *, rng, n_permutations: int = 10) -> float:
    """Fraction of (sequence, random permutation) draws for which ``label_fn`` changes its value.

    Parameters
    ----------
    label_fn : callable
        Maps an (N, L) int array to (N,) labels.
    X : (N, L) int array
    rng : int or numpy.random.Generator
        Seed of the permutations (one uniform permutation of the positions per draw and sequence).
    n_permutations : int, default 10

    Returns
    -------
    float
        In ``[0, 1]``; 0 means the labels are permutation-invariant on these sequences.

    Raises
    ------
    TypeError
        If ``label_fn`` is not callable, or ``X`` or the labels do not hold integers.
    ValueError
        If ``X`` is not a non-empty 2-D array of non-negative ids or ``label_fn`` does not return one label per row.

    Examples
    --------
    >>> X = np.tile(np.arange(4), (50, 1))
    >>> label_flip_rate(lambda X: X.sum(axis=1) % 2, X, rng=0)  # a function of the multiset never flips
    0.0
    >>> 0.4 < label_flip_rate(lambda X: (X[:, 0] < X[:, 1]).astype(int), X, rng=0) < 0.6
    True
    """
    if not callable(label_fn):
        raise TypeError(f"label_fn must be callable, got {type(label_fn).__name__}")
    X = _check_ids(X)
    B = check_positive_int(n_permutations, "n_permutations")
    rng = check_rng(rng)
    y = _check_labels(label_fn(X), X.shape[0])
    flips = 0
    for _ in range(B):
        perm = np.argsort(rng.random(X.shape), axis=1)
        flips += int(np.sum(_check_labels(label_fn(np.take_along_axis(X, perm, axis=1)), X.shape[0]) != y))
    return flips / (B * X.shape[0])


@dataclass(frozen=True)
class NonDegeneracy:
    """Result of :func:`non_degeneracy`.

    Attributes
    ----------
    n_classes : int
        Number of distinct labels.
    min_class_fraction : float
        Share of the rarest label.
    constant_positions : tuple of int
        Positions holding the same token in every sequence.

    Examples
    --------
    >>> NonDegeneracy(n_classes=2, min_class_fraction=0.5, constant_positions=()).holds
    True
    >>> NonDegeneracy(n_classes=1, min_class_fraction=1.0, constant_positions=()).holds
    False
    """

    n_classes: int
    min_class_fraction: float
    constant_positions: tuple[int, ...]

    @property
    def holds(self) -> bool:
        """Whether the data are non-degenerate: at least two labels and no constant position."""
        return self.n_classes >= 2 and not self.constant_positions


def non_degeneracy(X, y) -> NonDegeneracy:
    """The book's data-side reading of non-degeneracy: at least two labels occur and no position is constant.

    A constant position (the same token in every sequence) and a constant label are the degenerate cases in which
    the training loss cannot depend on how positions are told apart.

    Parameters
    ----------
    X : (N, L) int array
        Token ids, one sequence per row.
    y : (N,) int array
        Class labels.

    Returns
    -------
    NonDegeneracy

    Raises
    ------
    ValueError
        If ``X`` is not a non-empty 2-D array of non-negative ids or ``y`` does not hold one label per row.
    TypeError
        If ``X`` or ``y`` does not hold integers.

    Examples
    --------
    >>> X = np.array([[5, 0, 1], [5, 1, 0], [5, 2, 2]])
    >>> res = non_degeneracy(X, np.array([1, 0, 1]))
    >>> res.constant_positions, res.holds  # position 0 always holds token 5
    ((0,), False)
    """
    X = _check_ids(X)
    y = _check_labels(y, X.shape[0])
    _, counts = np.unique(y, return_counts=True)
    constant = tuple(int(i) for i in np.flatnonzero(np.all(X == X[:1], axis=0)))
    return NonDegeneracy(int(counts.size), float(counts.min() / y.size), constant)
