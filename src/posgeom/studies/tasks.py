"""Labelled data sets for the chapters' training experiments: synthetic marker tasks and tokenised real text.

Every task is a :class:`TaskData` (equal-length token id sequences, one class label each, optional padding mask),
the input format of :func:`posgeom.nn.train_classifier` and of the studies' training drivers.

Synthetic marker tasks
----------------------
Each task writes one or two *markers* into background sequences and pairs every sequence with a *partner* holding
the same multiset of tokens and the opposite label, so that no function of the multiset beats accuracy 1/2
(:func:`posgeom.studies.multiset_bound`) and only the positions of the markers decide the label:

* :func:`order_task` ("a before b"): markers ``a = 0`` and ``b = 1`` at two distinct random positions; label 1
  iff ``a`` precedes ``b``; the partner swaps the two markers. The label depends on the *order* of the markers and
  flips when the sequence is reversed.
* :func:`position_task` ("a early"): marker ``a = 0`` only; label 1 iff ``a`` sits in the first half
  (position ``< L/2``); the partner moves ``a`` into the second half. The label depends on the *absolute* position
  of ``a`` (and, for even ``L``, flips under reversal).
* :func:`distance_task` ("a near b"): label 1 iff the markers are at most ``max_gap`` positions apart; the partner
  moves ``b`` beyond that gap. The label depends on the *offset* only and is invariant under reversal.
* The "a in the middle" task of Chapter 9, :func:`posgeom.studies.centre_task`, lives with the experiment that
  uses it (:mod:`posgeom.studies.stress_accuracy`) and follows the same conventions; its label depends on the
  absolute position of ``a`` and is invariant under reversal.

**Conventions.**

* Ids 0 and 1 are reserved for the markers; the background uses ids ``2..vocab_size-1`` (so ``vocab_size >= 4``)
  and comes from :func:`posgeom.synthetic_corpus` in one of its regimes (``"smooth"``, ``"abrupt"``,
  ``"stationary"``, shifted by 2) or, with ``regime="uniform"``, from independent uniform draws (no positional
  statistics at all).
* A task of ``n_pairs`` pairs holds ``2 n_pairs`` sequences: the bases first, then their partners in the same
  order (row ``k`` and row ``n_pairs + k`` are partners).
* Randomness is the package's convention: ``rng`` (keyword-only) is an int seed or a
  :class:`numpy.random.Generator`; the same call gives the same data.

Real text
---------
:func:`tokenize_dataset` turns labelled texts into WordPiece id sequences under BERT's input convention
(``[CLS] ... [SEP]``, right padding, masked; :class:`TokenizedDataset`), and :class:`Vocabulary` renumbers the ids
seen in a training split compactly (0 padding, 1 unknown), so that a small model needs a small embedding table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_positive_int, check_rng
from ..corpus.counts import pad_sequences, position_counts
from ..corpus.synthetic import synthetic_corpus

__all__ = [
    "TaskData",
    "order_task",
    "distance_task",
    "position_task",
    "multiset_label",
    "multiset_task",
    "TokenizedDataset",
    "tokenize_dataset",
    "Vocabulary",
]


@dataclass(frozen=True)
class TaskData:
    """A labelled set of equal-length token id sequences, the input format of the training functions.

    Attributes
    ----------
    X : (N, L) int64 array
        Token ids (padding positions hold some valid id; they are masked).
    y : (N,) int64 array
        Class labels.
    padding_mask : (N, L) bool array or None
        ``True`` at padding tokens (never attended to, left out of the mean pooling); ``None``: no padding.

    Raises
    ------
    ValueError
        If ``X`` is not a non-empty 2-D array, ``y`` does not hold one label per sequence, an id is negative, or
        ``padding_mask`` has the wrong shape or masks a whole sequence.
    TypeError
        If ``X`` or ``y`` does not hold integers.

    Examples
    --------
    >>> data = TaskData(np.array([[2, 0, 1], [2, 1, 0]]), np.array([1, 0]))
    >>> len(data), data.length, data.vocab_size
    (2, 3, 3)
    >>> data.X.dtype
    dtype('int64')
    """

    X: np.ndarray
    y: np.ndarray
    padding_mask: np.ndarray | None = None

    def __post_init__(self):
        X, y = np.asarray(self.X), np.asarray(self.y)
        if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
            raise ValueError(f"X must be a non-empty (N, L) array of token ids, got shape {X.shape}")
        if not np.issubdtype(X.dtype, np.integer) or not np.issubdtype(y.dtype, np.integer):
            raise TypeError(f"X and y must hold integers, got dtypes {X.dtype} and {y.dtype}")
        if y.shape != (X.shape[0],):
            raise ValueError(f"y must have shape ({X.shape[0]},), one label per sequence, got {y.shape}")
        if X.min() < 0:
            raise ValueError("X has negative token ids; ids must be >= 0")
        object.__setattr__(self, "X", X.astype(np.int64, copy=False))
        object.__setattr__(self, "y", y.astype(np.int64, copy=False))
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
        """``max id + 1``: the smallest vocabulary that holds every id."""
        return int(self.X.max()) + 1


def _background(n_sequences, n_positions, vocab_size, rng, regime):
    """Background tokens in ``[2, vocab_size)`` from :func:`posgeom.synthetic_corpus` (ids 0, 1 are reserved)."""
    if vocab_size < 4:
        raise ValueError(f"vocab_size must be >= 4 (tokens 0 and 1 are the markers), got {vocab_size}")
    if regime == "uniform":  # i.i.d. uniform background: no positional statistics, no dominant tokens
        return rng.integers(2, vocab_size, size=(n_sequences, n_positions))
    return synthetic_corpus(n_sequences, n_positions, vocab_size - 2, rng=rng, regime=regime) + 2


def _check_task_args(n_pairs, n_positions, vocab_size, rng):
    n_pairs = check_positive_int(n_pairs, "n_pairs")
    n_positions = check_positive_int(n_positions, "n_positions", minimum=3)
    vocab_size = check_positive_int(vocab_size, "vocab_size", minimum=4)
    return n_pairs, n_positions, vocab_size, check_rng(rng)


def order_task(n_pairs: int, n_positions: int, vocab_size: int, *, rng, regime: str = "smooth") -> TaskData:
    """The "a before b" task on a background with positional statistics: label 1 iff token 0 precedes token 1.

    Each of ``n_pairs`` background sequences (from :func:`posgeom.synthetic_corpus` with ``vocab_size - 2`` tokens,
    shifted to ids ``2..vocab_size-1``, regime ``regime``) receives the markers ``a = 0`` and ``b = 1`` at two
    distinct uniformly drawn positions; the data set holds every such sequence *and* its partner with ``a`` and
    ``b`` swapped (opposite label, same multiset of tokens). So the best accuracy of any function of the multiset is
    at most 1/2 (:func:`posgeom.studies.multiset_bound`) and the label flips under reversal of the sequence.

    Parameters
    ----------
    n_pairs : int
        Number of base sequences; the result has ``2 n_pairs`` sequences (bases first, then partners).
    n_positions : int
        Sequence length ``L >= 3``.
    vocab_size : int
        Total number of token ids ``>= 4`` (two markers plus the background vocabulary).
    rng : int or numpy.random.Generator
        Randomness of the background (:func:`posgeom.synthetic_corpus`), then of the marker positions.
    regime : {"smooth", "abrupt", "stationary", "uniform"}, default "smooth"
        Background regime; ``"smooth"`` gives non-stationary positional distributions; ``"uniform"`` draws every
        background token uniformly from ``2..vocab_size-1``, independently (the plain "a before b" task).

    Returns
    -------
    TaskData
        ``2 n_pairs`` sequences, bases first, then partners (row ``k`` and row ``n_pairs + k`` are partners).

    Raises
    ------
    ValueError
        If ``n_pairs < 1``, ``n_positions < 3`` or ``vocab_size < 4``.

    Examples
    --------
    >>> data = order_task(3, 6, 5, rng=0, regime="uniform")
    >>> data.X.shape, data.y.tolist()[:3] == [1 - v for v in data.y.tolist()[3:]]
    ((6, 6), True)
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


def distance_task(n_pairs: int, n_positions: int, vocab_size: int, *, rng, max_gap: int = 2,
                  regime: str = "smooth") -> TaskData:
    """The "a near b" task: label 1 iff the markers 0 and 1 are at most ``max_gap`` positions apart.

    Each base sequence (background as in :func:`order_task`) gets ``a = 0`` at a uniform position ``i`` and ``b = 1``
    at a uniform position ``j`` with ``1 <= |i - j| <= max_gap`` (label 1); its partner moves ``b`` to a uniform
    position ``j'`` with ``|i - j'| > max_gap``, swapping it with the background token there (label 0, same multiset).
    The label depends on offsets only and is invariant under reversal, unlike :func:`order_task`.

    Parameters
    ----------
    n_pairs, n_positions, vocab_size, rng, regime
        As in :func:`order_task`.
    max_gap : int, default 2
        The largest offset counted as "near"; needs ``n_positions > 2 max_gap + 1`` so that every ``i`` has a far
        position.

    Returns
    -------
    TaskData
        ``2 n_pairs`` sequences, bases (label 1) first, then partners (label 0).

    Raises
    ------
    ValueError
        As :func:`order_task`, or if ``n_positions <= 2 max_gap + 1``.

    Examples
    --------
    >>> data = distance_task(4, 8, 6, rng=0, max_gap=2)
    >>> a, b = np.argmax(data.X == 0, axis=1), np.argmax(data.X == 1, axis=1)
    >>> data.y.tolist(), bool(np.array_equal(data.y, np.abs(a - b) <= 2))
    ([1, 1, 1, 1, 0, 0, 0, 0], True)
    """
    n_pairs, n, vocab_size, rng = _check_task_args(n_pairs, n_positions, vocab_size, rng)
    max_gap = check_positive_int(max_gap, "max_gap")
    if n <= 2 * max_gap + 1:
        raise ValueError(f"n_positions={n} must exceed 2 * max_gap + 1 = {2 * max_gap + 1}; lower max_gap")
    X = _background(n_pairs, n, vocab_size, rng, regime)
    partners = X.copy()
    pos = np.arange(n)
    for row, partner in zip(X, partners):
        i = int(rng.integers(n))
        near = pos[(np.abs(pos - i) >= 1) & (np.abs(pos - i) <= max_gap)]
        far = pos[np.abs(pos - i) > max_gap]
        j, k = int(rng.choice(near)), int(rng.choice(far))
        row[i], row[j] = 0, 1
        partner[:] = row
        partner[j], partner[k] = row[k], 1
    X = np.concatenate([X, partners])
    a, b = np.argmax(X == 0, axis=1), np.argmax(X == 1, axis=1)
    y = (np.abs(a - b) <= max_gap).astype(np.int64)
    return TaskData(X, y)


def position_task(n_pairs: int, n_positions: int, vocab_size: int, *, rng, regime: str = "smooth") -> TaskData:
    """The "a early" task: label 1 iff the marker 0 sits in the first half of the sequence (position ``< L/2``).

    Each base sequence (background as in :func:`order_task`) gets ``a = 0`` at a uniform position ``i`` of the first
    half (label 1); its partner moves ``a`` to a uniform position ``j`` of the second half, swapping it with the
    background token there (label 0, same multiset). The label depends on the *absolute* position of ``a``, and (for
    even ``n``) it flips when the sequence is reversed, as in :func:`order_task`.

    Parameters
    ----------
    n_pairs, n_positions, vocab_size, rng, regime
        As in :func:`order_task`; ``n_positions`` even.

    Returns
    -------
    TaskData
        ``2 n_pairs`` sequences, bases (label 1) first, then partners (label 0).

    Raises
    ------
    ValueError
        As :func:`order_task`, or if ``n_positions`` is odd.

    Examples
    --------
    >>> data = position_task(3, 6, 5, rng=0)
    >>> a = np.argmax(data.X == 0, axis=1)
    >>> data.y.tolist(), bool(np.array_equal(data.y, a < 3))
    ([1, 1, 1, 0, 0, 0], True)
    """
    n_pairs, n, vocab_size, rng = _check_task_args(n_pairs, n_positions, vocab_size, rng)
    if n % 2:
        raise ValueError(f"n_positions must be even (two halves), got {n}")
    X = _background(n_pairs, n, vocab_size, rng, regime)
    partners = X.copy()
    for row, partner in zip(X, partners):
        i, j = int(rng.integers(n // 2)), int(rng.integers(n // 2, n))
        row[i] = 0
        partner[:] = row
        partner[i], partner[j] = row[j], 0
    X = np.concatenate([X, partners])
    y = (np.argmax(X == 0, axis=1) < n // 2).astype(np.int64)
    return TaskData(X, y)


def multiset_label(X, vocab_size: int) -> np.ndarray:
    """The label of :func:`multiset_task`: 1 iff most tokens of a sequence lie in the lower half of the background ids.

    The background ids are ``2..vocab_size-1``; the lower half is ``2 .. 1 + (vocab_size - 2) // 2``. The label is a
    function of the multiset of tokens only: permuting the positions of a sequence never changes it.

    Parameters
    ----------
    X : (N, L) int array
        Token ids.
    vocab_size : int

    Returns
    -------
    (N,) int64 ndarray of 0/1 labels.

    Examples
    --------
    >>> multiset_label(np.array([[2, 2, 5], [5, 4, 2]]), 6)
    array([1, 0])
    """
    X = np.asarray(X)
    vocab_size = check_positive_int(vocab_size, "vocab_size", minimum=4)
    low = 2 + (vocab_size - 2) // 2
    return ((X < low).sum(axis=1) > X.shape[1] // 2).astype(np.int64)


def multiset_task(n_pairs: int, n_positions: int, vocab_size: int, *, rng) -> TaskData:
    """A control task whose label ignores positions: 1 iff most tokens come from the lower half of the vocabulary.

    The background is uniform i.i.d. over the ids ``2..vocab_size-1`` (no positional statistics); sequences with
    exactly half their tokens in the lower half are not drawn (``n_positions`` even), so the label is never a tie.
    The label is a function of the multiset of tokens (:func:`multiset_label`): a model's positional encoding cannot
    help, and moving the rows of an encoding is the same as permuting positions, which leaves the data's law
    unchanged. Chapter 9 uses it as the negative control of the stress-accuracy association.

    Parameters
    ----------
    n_pairs : int
        The task holds ``2 * n_pairs`` sequences (the size of :func:`order_task`'s).
    n_positions, vocab_size : int
    rng : int or numpy.random.Generator

    Returns
    -------
    TaskData

    Raises
    ------
    ValueError
        ``vocab_size < 4`` or odd ``n_positions``.

    Examples
    --------
    >>> data = multiset_task(10, 6, 12, rng=0)
    >>> data.X.shape, bool(np.all(multiset_label(data.X, 12) == data.y))
    ((20, 6), True)
    """
    n_pairs, n, vocab_size, rng = _check_task_args(n_pairs, n_positions, vocab_size, rng)
    if n % 2:
        raise ValueError(f"n_positions must be even (so that no sequence ties), got {n}")
    X = rng.integers(2, vocab_size, size=(4 * n_pairs, n))
    low = 2 + (vocab_size - 2) // 2
    X = X[(X < low).sum(axis=1) != n // 2][: 2 * n_pairs]
    return TaskData(X, multiset_label(X, vocab_size))


@dataclass(frozen=True, eq=False)
class TokenizedDataset:
    """Texts as WordPiece id sequences under BERT's input convention, with their labels.

    Convention (that of :class:`posgeom.data.CountingConvention` with ``special_tokens=True``,
    ``truncation="model"``, ``count_padding=False``): each text becomes ``[CLS] w_1 ... w_k [SEP]`` with
    ``k = min(L, n - 2)`` word pieces, so a truncated text ends with ``[SEP]`` at position ``n - 1``; texts are
    right-padded to ``n`` with ``[PAD]`` for the model, and the padding is masked (never attended to, not pooled,
    not counted in ``mu_i``). No text is dropped.

    Attributes
    ----------
    sequences : list of 1-D int64 arrays
        The unpadded id sequences (lengths ``2..n``).
    labels : (N,) int64 array
        One class label per text.
    n_positions : int
        The model's number of positions ``n``.
    vocab_size : int
        Size of the tokenizer's vocabulary (ids lie in ``[0, vocab_size)``).
    pad_id : int
        The tokenizer's ``[PAD]`` id.

    Examples
    --------
    >>> ds = TokenizedDataset([np.array([101, 7, 102]), np.array([101, 7, 9, 102])], np.array([0, 1]),
    ...                       n_positions=5, vocab_size=200, pad_id=0)
    >>> len(ds), ds.lengths.tolist()
    (2, [3, 4])
    """

    sequences: list
    labels: np.ndarray
    n_positions: int
    vocab_size: int
    pad_id: int

    def __len__(self) -> int:
        return len(self.sequences)

    @property
    def lengths(self) -> np.ndarray:
        """Unpadded length of every sequence."""
        return np.fromiter((s.size for s in self.sequences), dtype=np.int64, count=len(self.sequences))

    def counts(self):
        """Position counts of the sequences, padding not counted (:func:`posgeom.position_counts`).

        Returns
        -------
        scipy.sparse.csr_matrix, shape ``(n_positions, vocab_size)``
            Entry ``(i, v)``: how many sequences hold id ``v`` at position ``i``.

        Examples
        --------
        >>> ds = TokenizedDataset([np.array([101, 7, 102]), np.array([101, 7, 9, 102])], np.array([0, 1]),
        ...                       n_positions=5, vocab_size=200, pad_id=0)
        >>> C = ds.counts()
        >>> C.shape, int(C[0, 101]), int(C[1, 7]), int(C.sum())
        ((5, 200), 2, 2, 7)
        """
        return position_counts(self.sequences, self.n_positions, self.vocab_size)

    def padded(self) -> tuple[np.ndarray, np.ndarray]:
        """The sequences right-padded to ``n_positions`` with ``pad_id``, and the padding mask.

        Returns
        -------
        ids : (N, n) int64 array
            WordPiece ids, right-padded with ``pad_id``.
        padding_mask : (N, n) bool array
            ``True`` at padding.

        Examples
        --------
        >>> ds = TokenizedDataset([np.array([101, 7, 102])], np.array([0]), n_positions=5, vocab_size=200, pad_id=0)
        >>> ids, mask = ds.padded()
        >>> ids.tolist(), mask.tolist()
        ([[101, 7, 102, 0, 0]], [[False, False, False, True, True]])
        """
        return pad_sequences(self.sequences, self.n_positions, pad_id=self.pad_id)


def tokenize_dataset(texts, labels, tokenizer, n_positions: int) -> TokenizedDataset:
    """Tokenise labelled texts for a model of ``n_positions`` positions (see :class:`TokenizedDataset`).

    Parameters
    ----------
    texts : sequence of str
        The texts, in order.
    labels : (N,) int array
        One class label per text.
    tokenizer : transformers fast tokenizer
        E.g. :func:`posgeom.data.load_tokenizer`; needs ``[CLS]``, ``[SEP]`` and ``[PAD]``.
    n_positions : int
        ``n >= 3`` (room for ``[CLS]``, one word piece and ``[SEP]``).

    Returns
    -------
    TokenizedDataset

    Raises
    ------
    TypeError
        If ``labels`` is not a 1-D integer array.
    ValueError
        If ``n_positions < 3``, the tokenizer has no ``[PAD]`` token, or there is not one label per text.

    Examples
    --------
    >>> from posgeom.data import load_tokenizer
    >>> ds = tokenize_dataset(["a good film", "not good at all, just bad"], np.array([1, 0]),
    ...                       load_tokenizer(), 6)
    >>> [s.tolist() for s in ds.sequences]  # the second text is truncated and ends with [SEP]
    [[101, 1037, 2204, 2143, 102], [101, 2025, 2204, 2012, 2035, 102]]
    """
    from ..data.text import CountingConvention, iter_token_sequences

    n = check_positive_int(n_positions, "n_positions", minimum=3)
    labels = np.asarray(labels)
    if not np.issubdtype(labels.dtype, np.integer) or labels.ndim != 1:
        raise TypeError("labels must be a 1-D integer array (one class label per text)")
    if tokenizer.pad_token_id is None:
        raise ValueError("the tokenizer has no [PAD] token; model inputs need one")
    convention = CountingConvention(n, special_tokens=True, truncation="model", count_padding=False)
    sequences = [s for batch in iter_token_sequences(texts, tokenizer, convention) for s in batch]
    if len(sequences) != labels.size:
        raise ValueError(f"got {len(sequences)} texts but {labels.size} labels; pass one label per text")
    return TokenizedDataset(sequences, labels.astype(np.int64), n, len(tokenizer), int(tokenizer.pad_token_id))


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """A compact vocabulary: the ids seen in a training set, renumbered, plus padding and unknown.

    Compact id 0 is padding, 1 is "unknown" (an id never seen in training), and ``2 + k`` is the ``k``-th smallest
    original id kept. A model over the compact ids has an embedding table of ``len(vocabulary)`` rows instead of the
    tokenizer's 30,522. On the training set the map is a bijection, so its positional statistics (and Hellinger
    distances) are exactly those of the original ids.

    Attributes
    ----------
    kept : (K,) int64 array
        The original ids kept, ascending.

    Examples
    --------
    >>> vocab = Vocabulary(np.array([101, 102, 2204]))
    >>> len(vocab), vocab.encode([2204, 101, 999]).tolist()
    (5, [4, 2, 1])
    """

    kept: np.ndarray
    PAD = 0
    UNK = 1

    @classmethod
    def fit(cls, dataset: TokenizedDataset, *, min_count: int = 1) -> Vocabulary:
        """Keep every original id that occurs at least ``min_count`` times in ``dataset``'s sequences.

        Parameters
        ----------
        dataset : TokenizedDataset
            The training split.
        min_count : int, default 1
            Smallest number of occurrences for an id to be kept.

        Returns
        -------
        Vocabulary

        Raises
        ------
        TypeError
            If ``dataset`` is not a :class:`TokenizedDataset`.
        ValueError
            If ``min_count < 1``.

        Examples
        --------
        >>> ds = TokenizedDataset([np.array([101, 7, 102]), np.array([101, 9, 102])], np.array([0, 1]),
        ...                       n_positions=4, vocab_size=200, pad_id=0)
        >>> Vocabulary.fit(ds).kept.tolist(), Vocabulary.fit(ds, min_count=2).kept.tolist()
        ([7, 9, 101, 102], [101, 102])
        """
        if not isinstance(dataset, TokenizedDataset):
            raise TypeError(f"dataset must be a TokenizedDataset, got {type(dataset).__name__}")
        min_count = check_positive_int(min_count, "min_count")
        freq = np.bincount(np.concatenate(dataset.sequences), minlength=dataset.vocab_size)
        return cls(np.flatnonzero(freq >= min_count).astype(np.int64))

    def __len__(self) -> int:
        return int(self.kept.size) + 2

    def encode(self, ids) -> np.ndarray:
        """Map original ids to compact ids (unknown ids to :attr:`UNK`).

        Parameters
        ----------
        ids : array_like of int
            Original (tokenizer) ids, any shape.

        Returns
        -------
        int64 ndarray
            Compact ids, same shape: ``2 + k`` for the ``k``-th kept id, :attr:`UNK` (1) for an id not kept.

        Examples
        --------
        >>> Vocabulary(np.array([5, 9])).encode([[9, 5], [7, 9]]).tolist()
        [[3, 2], [1, 3]]
        """
        ids = np.asarray(ids, dtype=np.int64)
        where = np.searchsorted(self.kept, ids)
        found = (where < self.kept.size) & (self.kept[np.minimum(where, self.kept.size - 1)] == ids)
        return np.where(found, where + 2, self.UNK)

    def task_data(self, dataset: TokenizedDataset) -> TaskData:
        """The model inputs of ``dataset``: compact ids (padding = :attr:`PAD`), labels and padding mask.

        Parameters
        ----------
        dataset : TokenizedDataset
            Any split (ids not kept become :attr:`UNK`).

        Returns
        -------
        TaskData
            ``X`` of shape ``(len(dataset), dataset.n_positions)``, with the padding mask.

        Examples
        --------
        >>> ds = TokenizedDataset([np.array([101, 7, 102]), np.array([101, 9, 102])], np.array([0, 1]),
        ...                       n_positions=4, vocab_size=200, pad_id=0)
        >>> data = Vocabulary(np.array([7, 101, 102])).task_data(ds)
        >>> data.X.tolist(), data.padding_mask[:, -1].tolist()
        ([[3, 2, 4, 0], [3, 1, 4, 0]], [True, True])
        """
        ids, mask = dataset.padded()
        return TaskData(np.where(mask, self.PAD, self.encode(ids)), dataset.labels, mask)
