"""Chapter 6: does a learned table need ``rank(B)`` directions?

* :func:`rank_comparison` -- the block-swap task, one ensemble of seeds per encoding: none, low-rank, full
* :func:`decide` -- the verdict on one arm from its equivalence test
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_positive_int, check_seeds
from ..corpus.synthetic import sample_sequences
from ..nn import ModelSpec, TrainConfig, fit_ensemble
from ..nn.tasks import TaskData

if TYPE_CHECKING:
    from ..inference import Equivalence

__all__ = ["rank_comparison", "decide"]


def _block_swap_task(mu: np.ndarray, n_sequences: int, n_blocks: int, rng: np.random.Generator) -> TaskData:
    """Sequences from ``mu``, half of them (label 1) with two random blocks of positions exchanged."""
    n = mu.shape[0]
    X = sample_sequences(mu, n_sequences, rng=rng)
    y = rng.integers(0, 2, n_sequences)
    blocks = X.reshape(n_sequences, n_blocks, n // n_blocks)
    for i in np.flatnonzero(y):
        a, b = rng.choice(n_blocks, 2, replace=False)
        blocks[i, [a, b]] = blocks[i, [b, a]]
    return TaskData(blocks.reshape(n_sequences, n), y.astype(np.int64), None)


class _Verdict(str):
    """A verdict word whose ``repr`` is the word itself (it reads as plain text when glued into prose)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


def decide(eq: Equivalence, *, min_power: float = 0.8) -> str:
    """The verdict on one arm from its :func:`posgeom.inference.equivalence_test` of "full minus arm".

    Parameters
    ----------
    eq : posgeom.inference.Equivalence
    min_power : float, default 0.8

    Returns
    -------
    str
        "loses" (interval > 0) or "equivalent" (in the margin) if both powers reach ``min_power``, else "undetermined".
    """
    at_margin = 1.0 if math.isnan(eq.power_at_margin) else eq.power_at_margin  # nan: a vanishing SD
    powered = eq.power >= min_power and at_margin >= min_power
    if powered and eq.lower > 0:
        return _Verdict("loses")
    if powered and eq.equivalent:
        return _Verdict("equivalent")
    return _Verdict("undetermined")


@dataclass(frozen=True)
class RankComparison:
    """Test accuracies (``accuracy``: rows ``names``, "none", "rank r" per rank, "full"; columns ``seeds``) and the
    positional ``parameters`` of each encoding."""

    names: tuple
    parameters: tuple
    accuracy: np.ndarray
    seeds: tuple

    def __getitem__(self, name: str) -> np.ndarray:
        return self.accuracy[self.names.index(name)]

    def deficit(self, name: str) -> np.ndarray:
        """Per seed: full table minus ``name`` (paired by seed)."""
        return self["full"] - self[name]


def rank_comparison(mu: ArrayLike, *, n_blocks: int, n_train: int, n_test: int, ranks: Sequence[int],
                    seeds: Sequence[int], config: TrainConfig, d_model: int, n_heads: int = 2) -> RankComparison:
    """Train one ensemble of ``seeds`` per encoding on the block-swap task of ``mu`` and score it.

    Seed ``s`` draws its training and test sets from ``default_rng([s, 0])`` and ``default_rng([s, 1])`` and fixes the
    initialisation and batch order (:func:`posgeom.nn.fit_ensemble`); every encoding gets the same seeds (paired).

    Parameters
    ----------
    mu : (n, V) array
        Positional distributions.
    n_blocks : int
        Equal blocks of positions (must divide ``n``); label 1 has two of them exchanged, in half the sequences.
    n_train, n_test, d_model, n_heads : int
        Sequences per seed; the model's width and heads.
    ranks, seeds : sequence of int
        Ranks of the learned low-rank tables; the seeds, one independent run each.
    config : posgeom.nn.TrainConfig

    Returns
    -------
    RankComparison
    """
    mu = np.asarray(mu, dtype=float)
    n = mu.shape[0]
    K = check_positive_int(n_blocks, "n_blocks", minimum=2)
    if n % K:
        raise ValueError(f"n_blocks={K} must divide the number of positions {n}")
    seeds = check_seeds(seeds)
    sizes = (check_positive_int(n_train, "n_train"), check_positive_int(n_test, "n_test"))
    train, test = ([_block_swap_task(mu, sizes[k], K, np.random.default_rng([s, k])) for s in seeds] for k in (0, 1))
    V = int(max(d.X.max() for d in (*train, *test))) + 1
    arms = [("none", "none", None)] + [(f"rank {r}", "low_rank", int(r)) for r in ranks] + [("full", "learned", None)]
    names, params, acc = [], [], []
    for name, scheme, r in arms:
        spec = ModelSpec(vocab_size=V, n_positions=n, d_model=d_model, n_heads=n_heads, positional=scheme, rank=r)
        runs = fit_ensemble(spec, train, seeds=seeds, config=config)
        names.append(name)
        params.append(0 if scheme == "none" else (n * d_model if r is None else r * (n + d_model)))
        acc.append([run.accuracy(data) for run, data in zip(runs, test)])
    return RankComparison(tuple(names), tuple(params), np.array(acc), seeds)
