"""Chapter 6: does a learned table need ``rank(B)`` directions?

* :func:`block_swap_task` -- is a sequence intact, or have two of its blocks of positions traded places?
* :func:`rank_comparison` -- one ensemble of seeds per encoding (one training set per seed): none, low-rank, full
* :func:`decide` -- the verdict on one arm from its equivalence test
* :func:`paired_mde` -- minimum detectable effect of a paired ``t`` design
* :func:`detection_curve` -- the signal rank of parallel analysis against the number of texts
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from .._validation import check_positive_int, check_rng, check_seeds
from ..corpus.synthetic import sample_sequences
from ..nn import ModelSpec, TrainConfig, fit_ensemble
from .parametrisation import parallel_analysis
from ..nn.tasks import TaskData

if TYPE_CHECKING:
    from ..inference import Equivalence

__all__ = [
    "RankComparison",
    "block_swap_task",
    "rank_comparison",
    "decide",
    "paired_mde",
    "detection_curve",
]


def block_swap_task(mu: ArrayLike, n_sequences: int, n_blocks: int, *, rng: int | np.random.Generator) -> TaskData:
    """Sequences from ``mu``, half of them (label 1) with two random blocks of positions exchanged.

    Parameters
    ----------
    mu : (n, V) array
        Positional distributions.
    n_sequences : int
    n_blocks : int
        Equal blocks; must divide ``n``.
    rng : int or numpy.random.Generator

    Returns
    -------
    TaskData

    Examples
    --------
    >>> from posgeom import synthetic_distributions
    >>> mu = synthetic_distributions(8, 10, rng=0, regime="abrupt", n_topics=4)
    >>> block_swap_task(mu, 50, 4, rng=0).X.shape
    (50, 8)
    """
    mu = np.asarray(mu, dtype=float)
    n = mu.shape[0]
    m = check_positive_int(n_sequences, "n_sequences")
    K = check_positive_int(n_blocks, "n_blocks", minimum=2)
    if n % K:
        raise ValueError(f"n_blocks={K} must divide the number of positions {n}")
    rng = check_rng(rng)
    X = sample_sequences(mu, m, rng=rng)
    y = rng.integers(0, 2, m)
    blocks = X.reshape(m, K, n // K)
    for i in np.flatnonzero(y):
        a, b = rng.choice(K, 2, replace=False)
        blocks[i, [a, b]] = blocks[i, [b, a]]
    return TaskData(blocks.reshape(m, n), y.astype(np.int64), None)


class _Verdict(str):
    """A verdict word whose ``repr`` is the word itself (it reads as plain text when glued into prose)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


def decide(eq: Equivalence, *, min_power: float = 0.8) -> str:
    """The verdict on one arm from its :func:`posgeom.inference.equivalence_test` of "full minus arm".

    "loses" (interval above 0) or "equivalent" (inside the margin) when both powers of the design reach
    ``min_power``, else "undetermined".

    Parameters
    ----------
    eq : posgeom.inference.Equivalence
    min_power : float, default 0.8

    Returns
    -------
    str

    Examples
    --------
    >>> from posgeom.inference import equivalence_test
    >>> decide(equivalence_test([0.01, -0.012, 0.0, 0.015, -0.005, 0.008], 0.05))
    equivalent
    """
    at_margin = 1.0 if math.isnan(eq.power_at_margin) else eq.power_at_margin  # nan: a vanishing SD
    powered = eq.power >= min_power and at_margin >= min_power
    if powered and eq.lower > 0:
        return _Verdict("loses")
    if powered and eq.equivalent:
        return _Verdict("equivalent")
    return _Verdict("undetermined")


def paired_mde(sd: float, n_seeds: int, *, power: float = 0.8, confidence: float = 0.95) -> float:
    """Smallest true mean difference a two-sided paired ``t`` test of ``n_seeds`` seeds detects with ``power``.

    Parameters
    ----------
    sd : float
        Seed standard deviation of the paired differences.
    n_seeds : int
    power : float, default 0.8
    confidence : float, default 0.95

    Returns
    -------
    float
        ``(t_{(1+confidence)/2} + t_{power}) sd / sqrt(n_seeds)``, ``n_seeds - 1`` degrees of freedom.

    Examples
    --------
    >>> round(paired_mde(0.01, 8), 4)
    0.0115
    """
    n = check_positive_int(n_seeds, "n_seeds", minimum=2)
    if not (sd > 0 and math.isfinite(sd)):
        raise ValueError(f"sd must be finite and positive, got {sd!r}")
    df = n - 1
    return float((stats.t.ppf((1 + confidence) / 2, df) + stats.t.ppf(power, df)) * sd / math.sqrt(n))


@dataclass(frozen=True)
class RankComparison:
    """Test accuracies of one ensemble per encoding (rows: encodings; columns: seeds).

    Attributes
    ----------
    names : tuple of str
        ``"none"``, ``"rank r"`` per rank, ``"full"``.
    parameters : tuple of int
        Positional parameters of each encoding.
    accuracy : (n_encodings, n_seeds) array
    seeds : tuple of int
    """

    names: tuple
    parameters: tuple
    accuracy: np.ndarray
    seeds: tuple

    def __getitem__(self, name: str) -> np.ndarray:
        return self.accuracy[self.names.index(name)]

    def deficit(self, name: str) -> np.ndarray:
        """Per seed: full table minus ``name`` (paired by seed: the seed's training and test sets, initialisation
        seed and data order are the same for every encoding)."""
        return self["full"] - self[name]


def _per_seed(data, n_seeds: int, name: str, *, shared: bool) -> list[TaskData]:
    """``data`` as a list of one dataset per seed (a single one repeated when ``shared`` allows it)."""
    if isinstance(data, TaskData):
        if shared:
            return [data] * n_seeds
        raise TypeError(f"{name} must be one TaskData per seed (independent runs: every seed draws its own training "
                        f"set), got a single TaskData; draw one per seed, e.g. [block_swap_task(mu, n_sequences, "
                        f"n_blocks, rng=np.random.default_rng([seed, 0])) for seed in seeds]")
    items = list(data) if isinstance(data, (list, tuple)) else None
    if not items or not all(isinstance(d, TaskData) for d in items):
        one = "a TaskData or " if shared else ""
        raise TypeError(f"{name} must be {one}a list of TaskData, one per seed, got {data!r:.80}")
    if len(items) != n_seeds:
        raise ValueError(f"got {len(items)} datasets in {name} for {n_seeds} seeds; pass one per seed")
    return items


def rank_comparison(train: Sequence[TaskData], test: TaskData | Sequence[TaskData], *, ranks: Sequence[int],
                    seeds: Sequence[int], config: TrainConfig, d_model: int, n_heads: int = 2,
                    include_none: bool = True) -> RankComparison:
    """Train one ensemble of ``seeds`` per encoding (:func:`posgeom.nn.fit_ensemble`) and score it on ``test``.

    Seed ``seeds[k]`` is one independent run: it trains on ``train[k]`` (its own training set), from its own
    initialisation and in its own mini-batch order, and is scored on ``test[k]`` (or on the one shared ``test``).
    Every encoding gets the same training set, test set and seed for a given ``k``, so the comparison is paired by
    seed, and the seed-level spread includes the sampling of the training set.

    Parameters
    ----------
    train : list of TaskData
        One training set per seed, all of the same size (draw them from the seed, e.g. with
        ``rng=np.random.default_rng([seed, 0])``).
    test : TaskData or list of TaskData
        One test set per seed, or one test set shared by every seed.
    ranks : sequence of int
        Ranks of the learned low-rank tables.
    seeds : sequence of int
    config : posgeom.nn.TrainConfig
    d_model, n_heads : int
    include_none : bool, default True
        Also train models without positions.

    Returns
    -------
    RankComparison

    Raises
    ------
    TypeError
        ``train`` is a single dataset, or either argument is not made of :class:`~posgeom.nn.tasks.TaskData`.
    ValueError
        Datasets in another number than the seeds, or training sets of different sizes.
    """
    seeds = check_seeds(seeds)
    train = _per_seed(train, len(seeds), "train", shared=False)
    test = _per_seed(test, len(seeds), "test", shared=True)
    n = train[0].X.shape[1]
    V = int(max(d.X.max() for d in (*train, *test))) + 1
    arms = ([("none", "none", None)] if include_none else []) + [
        (f"rank {r}", "low_rank", int(r)) for r in ranks] + [("full", "learned", None)]
    names, params, acc = [], [], []
    for name, scheme, r in arms:
        spec = ModelSpec(vocab_size=V, n_positions=n, d_model=d_model, n_heads=n_heads, positional=scheme, rank=r)
        runs = fit_ensemble(spec, train, seeds=seeds, config=config)
        names.append(name)
        params.append(0 if scheme == "none" else (n * d_model if r is None else r * (n + d_model)))
        acc.append([run.accuracy(data) for run, data in zip(runs, test)])
    return RankComparison(tuple(names), tuple(params), np.array(acc), seeds)


def detection_curve(X: ArrayLike, vocab_size: int, sizes: Sequence[int], *, rng: int | np.random.Generator,
                    padding_mask: ArrayLike | None = None, n_null: int = 40, repeats: int = 1) -> np.ndarray:
    """Signal rank of :func:`~posgeom.studies.parallel_analysis` on random subsamples of each size.

    Parameters
    ----------
    X : (N, n) int array
    vocab_size : int
    sizes : sequence of int
        Subsample sizes, each at most ``N``.
    rng : int or numpy.random.Generator
    padding_mask : (N, n) bool array, optional
    n_null : int, default 40
    repeats : int, default 1
        Subsamples per size.

    Returns
    -------
    (len(sizes), repeats) int array

    Examples
    --------
    >>> from posgeom import synthetic_corpus
    >>> X = synthetic_corpus(400, 8, 20, rng=0, regime="abrupt")
    >>> detection_curve(X, 20, [400], rng=0, n_null=10).shape
    (1, 1)
    """
    X = np.asarray(X)
    mask = np.zeros(X.shape, dtype=bool) if padding_mask is None else np.asarray(padding_mask, dtype=bool)
    rng = check_rng(rng)
    out = np.empty((len(sizes), check_positive_int(repeats, "repeats")), dtype=int)
    for i, size in enumerate(sizes):
        size = check_positive_int(size, "size")
        if size > X.shape[0]:
            raise ValueError(f"size {size} exceeds the {X.shape[0]} sequences")
        for j in range(repeats):
            idx = rng.choice(X.shape[0], size, replace=False)
            out[i, j] = parallel_analysis(X[idx], vocab_size, padding_mask=mask[idx], rng=rng,
                                          n_null=n_null).signal_rank
    return out
