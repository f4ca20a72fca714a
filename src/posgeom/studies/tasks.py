"""Experiments that relate an encoding's stress to a trained model's accuracy.

Everything the chapter "Does stress predict accuracy?" computes, as reusable functions:

* **data**: :class:`TaskData` (token ids, labels, padding mask); two order-sensitive synthetic tasks on a corpus with
  known, non-stationary positional statistics (:func:`order_task`, :func:`distance_task`); real text turned into
  model inputs under BERT's input convention (:func:`tokenize_dataset`, :class:`TokenizedDataset`) with a compact
  vocabulary fitted on the training split (:class:`Vocabulary`);
* **geometry**: the Hellinger distances of a training corpus (:func:`corpus_distances`) and the distance a positional
  scheme induces between positions (:func:`induced_distances`), hence its stress (:func:`scheme_stress`);
* **training**: several seeds of one scheme on one task (:func:`train_and_evaluate`) and training at length ``n``
  with evaluation at longer lengths (:func:`length_extrapolation`);
* **statistics**: Spearman's rank correlation between stress and accuracy across schemes, with an exact (or
  Monte Carlo) permutation p-value and a bootstrap confidence interval (:func:`stress_accuracy_correlation`).

Conventions
-----------
* A positional scheme is one of :data:`posgeom.models.SCHEMES`; the model is
  :class:`posgeom.nn.TransformerClassifier` with mean pooling over non-padding tokens, bidirectional attention.
* Stress is always the *scale-optimal* stress ``min_a stress(a E, D)`` of :func:`posgeom.stress_of_distances`: the
  schemes have incomparable scales (relative schemes have none), and the question asked is about geometry, not size.
* Seeds: the parameters of the run with seed ``s`` are initialised after ``seed_everything(s)`` and its mini-batch
  order is drawn with seed ``s``; the same call gives the same numbers.
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
    n_positions : int
    vocab_size : int
        Size of the tokenizer's vocabulary (ids lie in ``[0, vocab_size)``).
    pad_id : int
        The tokenizer's ``[PAD]`` id.
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
        """Position counts (n x V CSR) of the sequences, padding not counted (:func:`posgeom.position_counts`)."""
        return position_counts(self.sequences, self.n_positions, self.vocab_size)

    def padded(self) -> tuple[np.ndarray, np.ndarray]:
        """``(ids, padding_mask)``: (N, n) WordPiece ids right-padded with ``pad_id`` and the padding mask."""
        return pad_sequences(self.sequences, self.n_positions, pad_id=self.pad_id)


def tokenize_dataset(texts, labels, tokenizer, n_positions: int) -> TokenizedDataset:
    """Tokenise labelled texts for a model of ``n_positions`` positions (see :class:`TokenizedDataset`).

    Parameters
    ----------
    texts : sequence of str
    labels : (N,) int array
    tokenizer : transformers fast tokenizer
        E.g. :func:`posgeom.data.load_tokenizer`; needs ``[CLS]``, ``[SEP]`` and ``[PAD]``.
    n_positions : int
        ``n >= 3`` (room for ``[CLS]``, one word piece and ``[SEP]``).

    Returns
    -------
    TokenizedDataset
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
    """

    kept: np.ndarray
    PAD = 0
    UNK = 1

    @classmethod
    def fit(cls, dataset: TokenizedDataset, *, min_count: int = 1) -> Vocabulary:
        """Keep every original id that occurs at least ``min_count`` times in ``dataset``'s sequences."""
        if not isinstance(dataset, TokenizedDataset):
            raise TypeError(f"dataset must be a TokenizedDataset, got {type(dataset).__name__}")
        min_count = check_positive_int(min_count, "min_count")
        freq = np.bincount(np.concatenate(dataset.sequences), minlength=dataset.vocab_size)
        return cls(np.flatnonzero(freq >= min_count).astype(np.int64))

    def __len__(self) -> int:
        return int(self.kept.size) + 2

    def encode(self, ids) -> np.ndarray:
        """Map original ids to compact ids (unknown ids to :attr:`UNK`)."""
        ids = np.asarray(ids, dtype=np.int64)
        where = np.searchsorted(self.kept, ids)
        found = (where < self.kept.size) & (self.kept[np.minimum(where, self.kept.size - 1)] == ids)
        return np.where(found, where + 2, self.UNK)

    def task_data(self, dataset: TokenizedDataset) -> TaskData:
        """The model inputs of ``dataset``: compact ids (padding = :attr:`PAD`), labels and padding mask."""
        ids, mask = dataset.padded()
        return TaskData(np.where(mask, self.PAD, self.encode(ids)), dataset.labels, mask)
