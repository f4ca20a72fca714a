"""The experiment of the chapter on Theorem 4 (positional separation): dose-response of one pair's separation.

A pair of positions ``(0, 1)`` is given a *cause* to be told apart whose strength is a parameter, and a second pair
``(2, 3)`` is given none: its two positions play exchangeable roles in every data set below, so the distance
``||p_2 - p_3||`` that training leaves is the noise level (initialisation, mini-batch order, finite sample,
regulariser) against which ``||p_0 - p_1||`` is read, measured in the same runs.

* :func:`transposition_task`: *non-stationarity* as the dose. The tokens at positions 0 and 1 are drawn from
  ``mu_0 = (1 - s) u + s a`` and ``mu_1 = (1 - s) u + s b`` (``u`` uniform, ``a`` and ``b`` uniform on the lower and
  upper half of the vocabulary, :func:`pair_distributions`); half the sequences have positions 0 and 1 exchanged
  (label 0). At ``s = 0`` an exchanged sequence has the same distribution as an original one: nothing to learn.
* :func:`order_mixture_task`: *order-sensitivity* as the dose. A task token at position 4 says which of two
  labels applies: "is ``x_0 < x_1``" (changes when positions 0 and 1 are exchanged) with probability ``w``, or
  "is ``x_0 + x_1 >= V``" (does not) otherwise. At ``w = 0`` no label depends on the order of the pair.
* :func:`train_from_tied`: one run -- a :class:`posgeom.nn.TransformerClassifier` with learned positions, all
  positions tied at ``P = 0`` before training, trained by :func:`posgeom.nn.fit` on the *regularised*
  loss (cross-entropy plus decoupled weight decay, AdamW), full batch, cosine schedule.
* :func:`separation_sweep`: several doses times several seeds, collected in a :class:`SeparationSweep`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_positive_int, check_rng
from .tasks import TaskData

__all__ = [
    "pair_distributions",
    "transposition_task",
    "order_mixture_task",
    "TiedRun",
    "train_from_tied",
    "SeparationSweep",
    "separation_sweep",
]


def _check_fraction(value, name: str) -> float:
    value = float(value)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {value}")
    return value


def pair_distributions(vocab_size: int, shift: float) -> tuple[np.ndarray, np.ndarray]:
    """The token distributions of positions 0 and 1: ``(1 - s) u + s a`` and ``(1 - s) u + s b``.

    Parameters
    ----------
    vocab_size : int
        ``V >= 2``, even (``a`` is uniform on ids ``0..V/2-1``, ``b`` on ``V/2..V-1``).
    shift : float
        ``s`` in ``[0, 1]``: 0 gives two uniform (equal) distributions, 1 two disjoint ones.

    Returns
    -------
    (mu_0, mu_1) : tuple of two (V,) float arrays
        The two distributions, each summing to 1.

    Raises
    ------
    ValueError
        If ``V`` is odd or smaller than 2, or ``s`` is outside ``[0, 1]``.

    Examples
    --------
    >>> mu0, mu1 = pair_distributions(4, 1.0)
    >>> mu0.tolist(), mu1.tolist()
    ([0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5])
    """
    V = check_positive_int(vocab_size, "vocab_size", minimum=2)
    if V % 2:
        raise ValueError(f"vocab_size must be even (two halves), got {V}")
    s = _check_fraction(shift, "shift")
    u = np.full(V, 1.0 / V)
    a = np.r_[np.full(V // 2, 2.0 / V), np.zeros(V // 2)]
    return (1 - s) * u + s * a, (1 - s) * u + s * a[::-1]


def transposition_task(n_sequences: int, *, shift: float, vocab_size: int = 8, rng) -> TaskData:
    """Original (label 1) against pair-exchanged (label 0) sequences of length 4; non-stationarity ``shift``.

    Every sequence draws ``x_0 ~ mu_0``, ``x_1 ~ mu_1`` (:func:`pair_distributions`) and ``x_2, x_3`` uniform; a
    fair coin decides whether it is kept (label 1) or has ``x_0`` and ``x_1`` exchanged (label 0). The best
    achievable accuracy is ``(1 + TV) / 2`` with ``TV`` the total variation between the joint laws of
    ``(x_0, x_1)`` and ``(x_1, x_0)``: 1/2 at ``shift = 0``, growing with ``shift``. Positions 2 and 3 are
    exchangeable in both classes (the null pair).

    Parameters
    ----------
    n_sequences : int
        Number of sequences ``N >= 1``.
    shift : float
        Non-stationarity of the pair, in ``[0, 1]``.
    vocab_size : int, default 8
        Even ``V >= 2``; ids ``0..V-1``.
    rng : int or numpy.random.Generator
        Randomness of the tokens and of the coin.

    Returns
    -------
    TaskData
        ``X`` of shape ``(n_sequences, 4)``, balanced labels in expectation.

    Raises
    ------
    ValueError
        If ``n_sequences < 1``, ``vocab_size`` is odd or smaller than 2, or ``shift`` is outside ``[0, 1]``.

    Examples
    --------
    >>> data = transposition_task(6, shift=1.0, vocab_size=4, rng=0)
    >>> data.X.shape
    (6, 4)
    >>> bool(np.all((data.X[:, 0] < 2) == (data.y == 1)))  # at shift 1 the label is visible at position 0
    True
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


def order_mixture_task(n_sequences: int, *, order_weight: float, vocab_size: int = 8, rng) -> TaskData:
    """A mixture of an order-sensitive and an order-blind label of the pair ``(0, 1)``, sequences of length 5.

    Positions 0..3 hold uniform tokens in ``0..V-1`` with ``x_1 != x_0``; position 4 holds a *task token*: ``V``
    with probability ``order_weight`` (label ``[x_0 < x_1]``, which flips when positions 0 and 1 are exchanged),
    ``V + 1`` otherwise (label ``[x_0 + x_1 >= V]``, which does not). Positions 2 and 3 are exchangeable filler (the
    null pair); the statistics of positions 0 and 1 are equal, so only the task can make the pair matter.

    Parameters
    ----------
    n_sequences : int
        Number of sequences ``N >= 1``.
    order_weight : float
        ``w`` in ``[0, 1]``: the fraction of labels that depend on the order of the pair.
    vocab_size : int, default 8
        ``V >= 2`` content tokens; the model needs ``V + 2`` ids.
    rng : int or numpy.random.Generator
        Randomness of the tokens and of the task token.

    Returns
    -------
    TaskData
        ``X`` of shape ``(n_sequences, 5)``.

    Raises
    ------
    ValueError
        If ``n_sequences < 1``, ``vocab_size < 2`` or ``order_weight`` is outside ``[0, 1]``.

    Examples
    --------
    >>> data = order_mixture_task(5, order_weight=1.0, vocab_size=4, rng=0)
    >>> bool(np.all(data.X[:, 4] == 4)), bool(np.all(data.y == (data.X[:, 0] < data.X[:, 1])))
    (True, True)
    """
    N = check_positive_int(n_sequences, "n_sequences")
    V = check_positive_int(vocab_size, "vocab_size", minimum=2)
    w = _check_fraction(order_weight, "order_weight")
    rng = check_rng(rng)
    x0 = rng.integers(V, size=N)
    x1 = (x0 + rng.integers(1, V, size=N)) % V  # uniform on the other V - 1 tokens
    order = rng.random(N) < w
    X = np.column_stack([x0, x1, rng.integers(V, size=(N, 2)), np.where(order, V, V + 1)]).astype(np.int64)
    y = np.where(order, x0 < x1, x0 + x1 >= V).astype(np.int64)
    return TaskData(X, y)


@dataclass(frozen=True)
class TiedRun:
    """Result of :func:`train_from_tied`.

    Attributes
    ----------
    encoding : (L, d) array
        The trained positional vectors ``p_i`` (rows).
    final_loss : float
        Cross-entropy on the training data after training (without the regulariser).
    accuracy : float
        Training accuracy.
    seed : int
        The seed of the run.

    Examples
    --------
    >>> run = TiedRun(np.array([[0.0, 0.0], [3.0, 4.0]]), 0.1, 1.0, 0)
    >>> run.distance(0, 1)
    5.0
    """

    encoding: np.ndarray
    final_loss: float
    accuracy: float
    seed: int

    def distance(self, i: int, j: int) -> float:
        """The distance ``||p_i - p_j||`` between two trained positional vectors.

        Parameters
        ----------
        i, j : int
            Positions (row indices of :attr:`encoding`).

        Returns
        -------
        float
            The Euclidean distance between rows ``i`` and ``j``.

        Examples
        --------
        >>> round(TiedRun(np.eye(2), 0.0, 1.0, 0).distance(0, 1) ** 2, 12)
        2.0
        """
        return float(np.linalg.norm(self.encoding[i] - self.encoding[j]))


def train_from_tied(data: TaskData, *, seed: int, width: int = 16, epochs: int = 80, lr: float = 0.05,
                    weight_decay: float = 0.01, vocab_size: int | None = None) -> TiedRun:
    """Train a one-layer, two-head Transformer with learned positions started at ``P = 0`` (all tied).

    The loss is the *regularised* one of the chapter: cross-entropy plus AdamW's decoupled weight decay
    ``weight_decay`` on every parameter (positions included), full batch, cosine learning-rate decay, via
    :func:`posgeom.nn.fit`.

    Parameters
    ----------
    data : TaskData
        The training set; positions 0..3 follow this module's layout.
    seed : int
        Seeds the parameters (:func:`posgeom.nn.seed_everything`) and the training.
    width : int, default 16
        Model width ``d`` (even).
    epochs : int, default 80
        Full-batch optimiser steps.
    lr : float, default 0.05
        Peak learning rate of the cosine schedule.
    weight_decay : float, default 0.01
        AdamW's decoupled weight decay ``lambda`` (the regulariser of the loss).
    vocab_size : int, optional
        Size of the embedding table; default ``data.vocab_size``.

    Returns
    -------
    TiedRun

    Raises
    ------
    TypeError
        If ``data`` is not a :class:`TaskData`.
    ValueError
        If ``seed`` is negative or ``width`` is not a positive integer.

    Examples
    --------
    >>> run = train_from_tied(transposition_task(64, shift=1.0, rng=0), seed=0, epochs=3)
    >>> run.encoding.shape
    (4, 16)
    """
    from ..nn import ModelSpec, TrainConfig, fit

    if not isinstance(data, TaskData):
        raise TypeError(f"data must be a TaskData, got {type(data).__name__}")
    seed = check_positive_int(seed, "seed", minimum=0)
    V = data.vocab_size if vocab_size is None else check_positive_int(vocab_size, "vocab_size")
    width = check_positive_int(width, "width")
    spec = ModelSpec(vocab_size=V, n_positions=data.length, d_model=width, n_heads=2, n_layers=1,
                     positional="learned", init_encoding=np.zeros((data.length, width)))
    config = TrainConfig(epochs=epochs, lr=lr, batch_size=None, weight_decay=weight_decay, schedule="cosine")
    res = fit(spec, data, seed=seed, config=config)
    return TiedRun(res.encoding, float(res.history.final_loss), res.train_accuracy, seed)


@dataclass(frozen=True)
class SeparationSweep:
    """Separation of the pair ``(0, 1)`` and of the null pair ``(2, 3)`` over doses (rows) and seeds (columns).

    Attributes
    ----------
    doses : (k,) array
        The doses of the sweep.
    seeds : (m,) int array
        The seeds of the sweep.
    pair, null : (k, m) arrays
        ``||p_0 - p_1||`` and ``||p_2 - p_3||`` of each run.
    accuracy : (k, m) array
        Training accuracy of each run.

    Examples
    --------
    >>> res = SeparationSweep(np.array([0.0]), np.array([0, 1]), np.array([[2.0, 3.0]]), np.array([[1.0, 1.0]]),
    ...                       np.ones((1, 2)))
    >>> res.excess.tolist()
    [[1.0, 2.0]]
    """

    doses: np.ndarray
    seeds: np.ndarray
    pair: np.ndarray
    null: np.ndarray
    accuracy: np.ndarray

    @property
    def excess(self) -> np.ndarray:
        """``pair - null``: separation beyond the noise level, run by run."""
        return self.pair - self.null

    def t_interval(self, values, level: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Mean over seeds and the two-sided Student-t interval (``m - 1`` degrees of freedom), per dose.

        Each row is passed to :func:`posgeom.inference.t_interval`, the package's one t interval.

        Parameters
        ----------
        values : (k, m) array
            One row per dose, one column per seed, e.g. :attr:`pair` or :attr:`excess`.
        level : float, default 0.95
            Two-sided coverage, in ``(0, 1)``.

        Returns
        -------
        (mean, lower, upper) : three (k,) arrays.

        Raises
        ------
        ValueError
            If ``values`` is not 2-D, has fewer than two seeds (columns), or ``level`` is outside ``(0, 1)``.

        Examples
        --------
        >>> res = SeparationSweep(np.array([0.0]), np.array([0, 1]), np.array([[2.0, 4.0]]),
        ...                       np.zeros((1, 2)), np.ones((1, 2)))
        >>> mean, lo, hi = res.t_interval(res.pair)
        >>> float(mean[0]), bool(lo[0] < 3 < hi[0])
        (3.0, True)
        """
        from ..inference import t_interval

        values = np.asarray(values, dtype=float)
        if values.ndim != 2 or values.shape[1] < 2:
            raise ValueError(f"values must be a (doses, seeds) array with at least two seeds, got shape {values.shape}")
        rows = [t_interval(row, confidence=level) for row in values]
        return (np.array([r.estimate for r in rows]), np.array([r.lower for r in rows]),
                np.array([r.upper for r in rows]))


def separation_sweep(make_task, doses, *, seeds, n_sequences: int = 256, **train_kwargs) -> SeparationSweep:
    """Train :func:`train_from_tied` for every dose and seed and collect the two separations.

    Parameters
    ----------
    make_task : callable
        ``make_task(dose, n_sequences, rng)`` returns a :class:`TaskData` whose positions 0..3 follow the layout of
        this module (pair 0-1, null pair 2-3).
    doses : sequence of float
        The strengths of the cause, one row of the result each.
    seeds : sequence of int
        Seed ``s`` draws the data (``rng=s``) and trains (``seed=s``).
    n_sequences : int, default 256
        Training sequences per run.
    **train_kwargs
        Passed to :func:`train_from_tied`.

    Returns
    -------
    SeparationSweep

    Raises
    ------
    TypeError
        If ``make_task`` is not callable.
    ValueError
        If ``doses`` or ``seeds`` is empty or a seed is negative.

    Examples
    --------
    >>> task = lambda s, n, rng: transposition_task(n, shift=s, rng=rng)
    >>> res = separation_sweep(task, [0.0, 1.0], seeds=[0, 1], n_sequences=32, epochs=2)
    >>> res.pair.shape
    (2, 2)
    """
    if not callable(make_task):
        raise TypeError(f"make_task must be callable, got {type(make_task).__name__}")
    doses = np.asarray(doses, dtype=float)
    seeds = np.asarray([check_positive_int(s, "seed", minimum=0) for s in seeds], dtype=np.int64)
    if doses.ndim != 1 or doses.size < 1 or seeds.size < 1:
        raise ValueError("doses and seeds must be non-empty sequences")
    shape = (doses.size, seeds.size)
    pair, null, acc = np.empty(shape), np.empty(shape), np.empty(shape)
    for a, dose in enumerate(doses):
        for b, seed in enumerate(seeds):
            run = train_from_tied(make_task(float(dose), n_sequences, int(seed)), seed=int(seed), **train_kwargs)
            pair[a, b], null[a, b], acc[a, b] = run.distance(0, 1), run.distance(2, 3), run.accuracy
    return SeparationSweep(doses, seeds, pair, null, acc)
