"""Shared pieces of the stress-accuracy experiments (Chapters 6 and 9).

===========================  ========================================================================
:func:`corpus_distances`     Hellinger distances between the plug-in ``mu_i`` of a task corpus
:func:`scheme_stress`        scale-optimal stress of a positional scheme against them
:func:`train_and_evaluate`   one scheme trained over seeds, with test accuracies (:class:`SchemeRun`)
:func:`scaled_mds_encoding`  the MDS encoding of a corpus at a model's width
:func:`permute_rows`         the encoding with a fraction of its rows moved
:func:`plateau_reached`      the stopping rule: training accuracy no longer improving
:func:`centre_task`          the reversal-invariant "centre" task
===========================  ========================================================================
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_distance_matrix, check_matrix, check_positive_int, check_rng
from ..corpus.counts import position_counts, position_distributions
from ..encodings.schemes import induced_distances
from ..geometry.hellinger import hellinger_distances
from ..nn import ModelSpec, TrainConfig, fit
from ..nn.positional import SCHEMES
from ..stress.core import stress_of_distances
from .tasks import TaskData, TokenizedDataset

__all__ = [
    "EXTRAPOLATING_SCHEMES",
    "corpus_distances",
    "scheme_stress",
    "SchemeRun",
    "train_and_evaluate",
    "scaled_mds_encoding",
    "permute_rows",
    "plateau_reached",
    "centre_task",
]


#: Schemes whose model can be evaluated at more positions than it was trained on: their positional signal is a
#: function of the position index (sinusoidal), of offsets (RoPE, ALiBi) or absent (none). A learned table, a fixed
#: MDS matrix and a learned low-rank factor have no row for an unseen position.
EXTRAPOLATING_SCHEMES = ("none", "sinusoidal", "rope", "alibi")


def corpus_distances(data, n_positions: int | None = None) -> np.ndarray:
    """Hellinger distances between the plug-in positional distributions ``mu_i`` of a training corpus.

    Parameters
    ----------
    data : TaskData or TokenizedDataset
        For :class:`TaskData`, position ``i`` counts the tokens at column ``i`` of the sequences that are not padding
        there; for :class:`TokenizedDataset`, the unpadded sequences (the same thing).
    n_positions : int, optional
        Use the first ``n_positions`` positions only (default: all).

    Returns
    -------
    (n, n) ndarray
        Hellinger distances (:func:`posgeom.hellinger_distances`): symmetric, zero diagonal, entries in [0, 1].

    Raises
    ------
    TypeError
        ``data`` is neither a :class:`TaskData` nor a :class:`TokenizedDataset`.
    ValueError
        A :class:`TaskData` padded on the left (or in the middle), or ``n_positions < 1``.

    Examples
    --------
    >>> from posgeom.studies import order_task
    >>> D = corpus_distances(order_task(20, 6, 10, rng=0))
    >>> D.shape, bool(np.allclose(D, D.T)), bool(np.all(np.diag(D) == 0)), bool(D.max() <= 1)
    ((6, 6), True, True, True)
    >>> corpus_distances(order_task(20, 6, 10, rng=0), n_positions=4).shape
    (4, 4)
    """
    if isinstance(data, TokenizedDataset):
        n = data.n_positions if n_positions is None else check_positive_int(n_positions, "n_positions")
        counts = position_counts(data.sequences, n, data.vocab_size)
    elif isinstance(data, TaskData):
        n = data.length if n_positions is None else check_positive_int(n_positions, "n_positions")
        if data.padding_mask is None:
            counts = position_counts(data.X, n, data.vocab_size)
        else:
            lengths = (~data.padding_mask).sum(axis=1)
            if np.any(data.padding_mask != (np.arange(data.length)[None, :] >= lengths[:, None])):
                raise ValueError("corpus_distances needs right padding (real tokens first, then padding)")
            counts = position_counts([row[:k] for row, k in zip(data.X, lengths)], n, data.vocab_size)
    else:
        raise TypeError(f"data must be a TaskData or a TokenizedDataset, got {type(data).__name__}")
    return hellinger_distances(position_distributions(counts))


def scheme_stress(scheme: str, D, *, d_model: int, n_heads: int, encoding=None) -> float:
    """Scale-optimal stress of a scheme's induced distances (:func:`induced_distances`) against ``D``.

    ``"none"`` induces the zero distance, whose optimal scale is 0 and stress exactly 1 (the worst value).

    Parameters
    ----------
    scheme : str
        One of :data:`posgeom.encodings.INDUCED_SCHEMES` (e.g. ``"none"``, ``"sinusoidal"``, ``"rope"``,
        ``"alibi"``, ``"learned"``, ``"fixed"``, ``"low_rank"``).
    D : (n, n) distance matrix
        Target distances between the ``n`` positions, e.g. :func:`corpus_distances` of the training corpus.
    d_model : int
        Model width (even for ``"sinusoidal"``).
    n_heads : int
        Attention heads; ``d_model / n_heads`` must be an even integer for ``"rope"``.
    encoding : (m, d) array or tensor, optional
        The absolute encoding (its first ``n`` rows), required for ``"learned"``, ``"fixed"`` and ``"low_rank"``
        and rejected for the other schemes.

    Returns
    -------
    float
        Scale-optimal stress in [0, 1]: 0 when the induced distances are proportional to ``D``.

    Raises
    ------
    ValueError
        ``D`` is not a distance matrix, the scheme is unknown, ``encoding`` is missing or superfluous, or the width
        does not split into even heads.

    Examples
    --------
    >>> from posgeom.studies import order_task
    >>> D = corpus_distances(order_task(20, 6, 10, rng=0))
    >>> scheme_stress("none", D, d_model=8, n_heads=2)
    1.0
    >>> round(scheme_stress("sinusoidal", D, d_model=8, n_heads=2), 3)
    0.043
    >>> P, _ = scaled_mds_encoding(D, 8)
    >>> bool(scheme_stress("fixed", D, d_model=8, n_heads=2, encoding=P) < 1e-9)  # the MDS encoding fits D
    True
    """
    D = check_distance_matrix(D, "D")
    E = induced_distances(scheme, D.shape[0], d_model=d_model, n_heads=n_heads, encoding=encoding)
    return stress_of_distances(E, D, scale="optimal")


@dataclass(frozen=True)
class SchemeRun:
    """Results of :func:`train_and_evaluate` (one entry per seed, in the order of ``seeds``).

    Attributes
    ----------
    scheme : str
        The positional scheme trained.
    seeds : tuple of int
        The seeds, one model each.
    train_accuracy, test_accuracy : (S,) arrays
        Accuracy of each seed's model on the training and the test set.
    extra_accuracy : dict str -> (S,) array
        Accuracy on every additional evaluation set, by name.
    encodings : list of (n_positions, d) arrays or None
        The trained absolute encoding ``P`` of each seed; ``None`` for schemes without one.

    Examples
    --------
    >>> run = SchemeRun(scheme="rope", seeds=(0, 1), train_accuracy=np.array([0.9, 1.0]),
    ...                 test_accuracy=np.array([0.7, 0.8]))
    >>> round(run.mean, 3), round(run.std, 4), run.encodings is None
    (0.75, 0.0707, True)
    """

    scheme: str
    seeds: tuple
    train_accuracy: np.ndarray
    test_accuracy: np.ndarray
    extra_accuracy: dict = field(default_factory=dict)
    encodings: list | None = None

    @property
    def mean(self) -> float:
        """Mean test accuracy over seeds."""
        return float(np.mean(self.test_accuracy))

    @property
    def std(self) -> float:
        """Standard deviation (ddof=1) of the test accuracy over seeds; 0 for a single seed."""
        return float(np.std(self.test_accuracy, ddof=1)) if len(self.seeds) > 1 else 0.0


def _check_seeds(seeds) -> tuple:
    if isinstance(seeds, (numbers.Integral, str)) or not hasattr(seeds, "__iter__"):
        raise TypeError(f"seeds must be a sequence of integers, e.g. (0, 1, 2), got {seeds!r}")
    seeds = tuple(check_positive_int(s, "each seed", minimum=0) for s in seeds)
    if not seeds:
        raise ValueError("seeds is empty; pass at least one seed")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be distinct, got {seeds}")
    return seeds


def _check_data(data, name):
    if not isinstance(data, TaskData):
        raise TypeError(f"{name} must be a TaskData, got {type(data).__name__}")
    return data


def train_and_evaluate(scheme: str, train: TaskData, test: TaskData, *, seeds, d_model: int = 32, n_heads: int = 2,
                       n_layers: int = 1, epochs: int = 5, lr: float = 3e-3, batch_size: int = 64,
                       weight_decay: float = 0.0, vocab_size: int | None = None, n_positions: int | None = None,
                       encoding=None, rank: int | None = None, init_encoding=None, extra: dict | None = None,
                       threads: int = 1) -> SchemeRun:
    """Train one positional scheme with several seeds and report per-seed accuracies.

    For every seed ``s``: ``seed_everything(s, threads=threads)``, build
    ``TransformerClassifier(vocab_size, n_positions, d_model, n_heads, n_layers, positional=scheme, ...)``
    (bidirectional, mean pooling), train it with :func:`posgeom.nn.fit` (AdamW, constant ``lr``,
    mini-batch order seeded by ``s``) and measure accuracy on ``train``, ``test`` and every set in ``extra``.

    Parameters
    ----------
    scheme : str
        One of :data:`posgeom.models.SCHEMES`.
    train, test : TaskData
        The training set and the test set.
    seeds : sequence of int
        Distinct seeds ``>= 0``, one model each.
    d_model, n_heads, n_layers : int
        Model size (defaults: width 32, 2 heads, 1 layer).
    epochs, batch_size : int
        Training epochs (default 5) and mini-batch size (default 64) of the :class:`posgeom.nn.TrainConfig`.
    lr, weight_decay : float
        AdamW learning rate (default 3e-3) and weight decay (default 0) of the :class:`posgeom.nn.TrainConfig`.
    vocab_size : int, optional
        Default: ``max id + 1`` over ``train``, ``test`` and ``extra``.
    n_positions : int, optional
        Size of the position table; default the longest length among the data sets. Evaluating at lengths beyond
        the training length needs a scheme of :data:`EXTRAPOLATING_SCHEMES`.
    encoding : (n_positions, d_model) array, optional
        The frozen matrix of ``"fixed"``.
    rank : int, optional
        The rank of ``"low_rank"``.
    init_encoding : (n_positions, d_model) array, optional
        ``"low_rank"`` only: initialise ``P = A B`` at the best rank-``rank`` approximation of this matrix
        (:func:`posgeom.encodings.low_rank_factors`: ``A = U_r S_r``, ``B = V_r^T``) instead of at random.
    extra : dict str -> TaskData, optional
        Further evaluation sets.
    threads : int, default 1
        Torch intra-op threads (part of the reproducibility contract of :mod:`posgeom.training`).

    Returns
    -------
    SchemeRun
        Per-seed accuracies (and trained encodings) in the order of ``seeds``.

    Raises
    ------
    ValueError
        An unknown scheme, empty or repeated seeds, a ``vocab_size`` or ``n_positions`` too small for the data,
        evaluation beyond the training length with a non-extrapolating scheme, or a misused ``init_encoding``.
    TypeError
        A data set that is not a :class:`TaskData`, or ``seeds`` that is not a sequence of integers.

    Examples
    --------
    >>> from posgeom.studies import order_task
    >>> train, test = order_task(20, 6, 10, rng=0), order_task(20, 6, 10, rng=1)
    >>> run = train_and_evaluate("learned", train, test, seeds=(0, 1), d_model=8, epochs=1, batch_size=16)
    >>> run.seeds, run.test_accuracy.shape, [P.shape for P in run.encodings]
    ((0, 1), (2,), [(6, 8), (6, 8)])
    >>> bool(np.all((run.train_accuracy >= 0) & (run.train_accuracy <= 1)))
    True
    """
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; choose one of {SCHEMES}")
    train, test = _check_data(train, "train"), _check_data(test, "test")
    extra = {} if extra is None else dict(extra)
    for name, data in extra.items():
        _check_data(data, f"extra[{name!r}]")
    seeds = _check_seeds(seeds)
    sets = [train, test, *extra.values()]
    needed_vocab = max(d.vocab_size for d in sets)
    vocab_size = needed_vocab if vocab_size is None else check_positive_int(vocab_size, "vocab_size")
    if vocab_size < needed_vocab:
        raise ValueError(f"vocab_size={vocab_size} is smaller than the largest id + 1 = {needed_vocab}")
    longest = max(d.length for d in sets)
    n_positions = longest if n_positions is None else check_positive_int(n_positions, "n_positions")
    if n_positions < longest:
        raise ValueError(f"n_positions={n_positions} is shorter than the longest sequence ({longest})")
    if longest > train.length and scheme not in EXTRAPOLATING_SCHEMES:
        raise ValueError(
            f"scheme {scheme!r} has no positional signal for positions >= {train.length} (never trained); "
            f"evaluate it at the training length, or use one of {EXTRAPOLATING_SCHEMES}"
        )
    if init_encoding is not None and scheme != "low_rank":
        raise ValueError(f"init_encoding is only used by the 'low_rank' scheme, not {scheme!r}")
    spec = ModelSpec(vocab_size=vocab_size, n_positions=n_positions, d_model=d_model, n_heads=n_heads,
                     n_layers=n_layers, positional=scheme, rank=rank, encoding=encoding, init_encoding=init_encoding)
    config = TrainConfig(epochs=epochs, lr=lr, batch_size=batch_size, weight_decay=weight_decay, threads=threads)
    train_acc, test_acc, encodings = [], [], []
    extra_acc = {name: [] for name in extra}
    for s in seeds:
        res = fit(spec, train, seed=s, config=config)
        train_acc.append(res.train_accuracy)
        test_acc.append(res.accuracy(test))
        for name, data in extra.items():
            extra_acc[name].append(res.accuracy(data))
        encodings.append(res.encoding)
    return SchemeRun(
        scheme=scheme,
        seeds=seeds,
        train_accuracy=np.array(train_acc),
        test_accuracy=np.array(test_acc),
        extra_accuracy={name: np.array(v) for name, v in extra_acc.items()},
        encodings=None if encodings[0] is None else encodings,
    )


# ------------------------------------------------------------------------------------------------ dose-response design


def scaled_mds_encoding(D, d_model: int) -> tuple[np.ndarray, np.ndarray]:
    """The MDS encoding of ``D`` in width ``d_model``, and its copy at the scale of the sinusoidal encoding.

    The MDS encoding (:func:`posgeom.mds_encoding`, rank capped at ``d_model``) has Hellinger scale (distances at
    most 1) while token embeddings have entries of size 1; the model gets it multiplied by the constant that makes
    its root-mean-square pairwise distance equal to that of :func:`posgeom.sinusoidal_encoding` at the same size.
    A constant factor does not change scale-optimal stress.

    Parameters
    ----------
    D : (n, n) distance matrix
        Hellinger distances of the training corpus (:func:`corpus_distances`).
    d_model : int
        Model width.

    Returns
    -------
    P, P_model : (n, d_model) arrays
        The MDS encoding and its scale-matched copy (``P_model = c P`` with ``c > 0``).

    Examples
    --------
    >>> from posgeom.studies import order_task
    >>> D = corpus_distances(order_task(50, 8, 12, rng=0))
    >>> P, P_model = scaled_mds_encoding(D, 16)
    >>> P.shape, bool(np.allclose(P_model / P_model[0, 0], P / P[0, 0]))
    ((8, 16), True)
    """
    from ..encodings.absolute import mds_encoding, sinusoidal_encoding
    from ..geometry import classical_mds, pairwise_distances

    D = check_distance_matrix(D, "D")
    d_model = check_positive_int(d_model, "d_model")
    n = D.shape[0]
    P = mds_encoding(D, d_model, rank=min(classical_mds(D).rank, d_model))
    spread = np.mean(pairwise_distances(P) ** 2)
    if spread == 0:
        raise ValueError("D is zero: every position has the same distribution and the MDS encoding is a point")
    factor = np.sqrt(np.mean(pairwise_distances(sinusoidal_encoding(n, d_model)) ** 2) / spread)
    return P, factor * P


def permute_rows(P, fraction: float, *, rng) -> tuple[np.ndarray, np.ndarray]:
    """Move a fraction of the rows of an encoding to other positions (a derangement of the chosen rows).

    ``k = round(fraction * n)`` rows are chosen uniformly; they are reassigned among themselves by a uniformly drawn
    permutation *without fixed points*, so every chosen position really gets another position's vector. The set of
    vectors is unchanged (so is every property that does not depend on which position holds which vector, such as
    the rank or the norms); only the assignment of vectors to positions, hence the geometry *relative to the
    positions*, changes. ``fraction = 0`` returns a copy of ``P``.

    Parameters
    ----------
    P : (n, d) array
    fraction : float in [0, 1]
        ``k = 1`` is impossible (a single row cannot move), so a fraction that rounds to one row moves two.
    rng : int or numpy.random.Generator

    Returns
    -------
    Q : (n, d) array
        The encoding with rows moved.
    moved : (k,) int array
        The positions whose vector changed, sorted.

    Examples
    --------
    >>> P = np.arange(10.0)[:, None]
    >>> Q, moved = permute_rows(P, 0.5, rng=0)
    >>> len(moved), bool(np.all(Q[moved] != P[moved])), sorted(Q.ravel()) == sorted(P.ravel())
    (5, True, True)
    >>> bool(np.array_equal(permute_rows(P, 0.0, rng=0)[0], P))
    True
    """
    P = check_matrix(P, "P")
    rng = check_rng(rng)
    if not isinstance(fraction, numbers.Real) or not 0.0 <= float(fraction) <= 1.0:
        raise ValueError(f"fraction must be a number in [0, 1], got {fraction!r}")
    n = P.shape[0]
    k = int(round(float(fraction) * n))
    if k == 1:
        k = 2
    if k == 0:
        return P.copy(), np.array([], dtype=np.int64)
    moved = np.sort(rng.choice(n, size=k, replace=False))
    while True:  # rejection sampling of a derangement; succeeds with probability about 1/e per draw
        perm = rng.permutation(k)
        if np.all(perm != np.arange(k)):
            break
    Q = P.copy()
    Q[moved] = P[moved[perm]]
    return Q, moved


def plateau_reached(history, patience: int, tol: float) -> bool:
    """Whether an accuracy history has plateaued: its best over the last ``patience`` epochs exceeds its best over the
    ``patience`` epochs before by less than ``tol``.

    Parameters
    ----------
    history : sequence of float
        Training accuracy after each epoch.
    patience : int
    tol : float

    Returns
    -------
    bool
        False while the history is shorter than ``2 * patience``.

    Examples
    --------
    >>> plateau_reached([0.5, 0.9, 0.9, 0.9], 2, 0.01), plateau_reached([0.5, 0.6, 0.8, 0.9], 2, 0.01)
    (True, False)
    """
    from ..nn.fit import plateau_reached as rule  # the rule of TrainConfig(patience=..., tol=...)

    return rule(history, patience, tol)


def _distances(P):
    from ..geometry import pairwise_distances

    return pairwise_distances(P)


def centre_task(n_pairs: int, n_positions: int, vocab_size: int, *, rng, regime: str = "smooth") -> TaskData:
    """The "a in the middle" task: label 1 iff marker 0 sits in the central half of the sequence.

    The central half is the positions ``i`` with ``L/4 <= i < 3L/4`` (``L`` a multiple of 4). Each base sequence
    (background as in :func:`posgeom.studies.order_task`) gets ``a = 0`` at a uniform central position (label 1);
    its partner moves ``a`` to a uniform edge position, swapping it with the background token there (label 0, same
    multiset). The label depends on the absolute position of ``a`` and is **invariant under reversal**
    ``i -> L - 1 - i`` (the central half is mapped onto itself), unlike :func:`posgeom.studies.position_task`,
    whose label flips.

    Parameters
    ----------
    n_pairs, n_positions, vocab_size, rng, regime
        As in :func:`posgeom.studies.order_task`; ``n_positions`` a multiple of 4.

    Returns
    -------
    TaskData
        ``2 n_pairs`` sequences, bases (label 1) first, then partners (label 0).

    Examples
    --------
    >>> data = centre_task(20, 8, 10, rng=0)
    >>> a = np.argmax(data.X == 0, axis=1)
    >>> bool(np.array_equal(data.y, (a >= 2) & (a < 6)))
    True
    >>> a_reversed = np.argmax(data.X[:, ::-1] == 0, axis=1)
    >>> bool(np.array_equal(data.y, (a_reversed >= 2) & (a_reversed < 6)))  # reversal keeps every label
    True
    """
    from .tasks import _background, _check_task_args

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
