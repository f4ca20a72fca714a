"""Chapter 6: does a learned table need ``rank(B)`` directions?

* :func:`rank_comparison` -- the block-swap task, one ensemble of seeds per encoding: none, low-rank, full
* :func:`decide` -- the verdicts on the arms: Holm-adjusted paired t tests for a loss, TOST at a fixed margin
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from .._validation import check_positive_int, check_seeds
from ..corpus.synthetic import sample_sequences
from ..inference import Equivalence, equivalence_test
from ..nn import ModelSpec, TrainConfig, fit_ensemble
from ..nn.tasks import TaskData

__all__ = ["rank_comparison", "decide"]


def _block_swap_task(mu: np.ndarray, n_sequences: int, n_blocks: int, rng: np.random.Generator) -> TaskData:
    """Sequences from ``mu``, half of them (label 1) with two random blocks of positions exchanged."""
    X = sample_sequences(mu, n_sequences, rng=rng)
    y = rng.integers(0, 2, n_sequences)
    blocks = X.reshape(n_sequences, n_blocks, -1)
    for i in np.flatnonzero(y):
        a, b = rng.choice(n_blocks, 2, replace=False)
        blocks[i, [a, b]] = blocks[i, [b, a]]
    return TaskData(blocks.reshape(n_sequences, -1), y.astype(np.int64), None)


class _Verdict(str):
    """A verdict word whose ``repr`` is the word itself (it reads as plain text when glued into prose)."""
    __repr__ = str.__str__


@dataclass(frozen=True)
class Decision:
    """One arm's ``verdict``: its TOST at the fixed margin (``test``: the interval, the powers at the observed SD) and
    the two-sided p-value of the paired t test of no deficit, Holm-adjusted over the arms (``p_holm``)."""
    test: Equivalence
    p_holm: float
    verdict: str


def decide(deficits: Sequence[ArrayLike], margin: float, *, alpha: float = 0.05) -> tuple[Decision, ...]:
    """Verdicts on arms compared with one reference, from their paired deficits (reference minus arm, one per seed).

    "loses" when the paired t test of no deficit, Holm-adjusted over the arms, rejects at ``alpha`` with a positive
    mean; else "equivalent" when the TOST at ``margin`` (> 0, fixed before the data) passes (the ``1 - alpha`` t
    interval inside ``+-margin``); else "undetermined". No power gate: each test controls its own error.

    Parameters
    ----------
    deficits : sequence of (n_seeds,) arrays
    margin, alpha : float

    Returns
    -------
    tuple of Decision

    Examples
    --------
    >>> [d.verdict for d in decide([[0.01, -0.01, 0.0, 0.005], [0.2, 0.21, 0.19, 0.2], [0.1, -0.1, 0.05]], 0.05)]
    [equivalent, loses, undetermined]
    """
    tests = [equivalence_test(d, margin, confidence=1 - alpha) for d in deficits]
    p = np.array([float(t.estimate == 0) if t.sd == 0 else  # a vanishing SD: no deficit, or a certain one
                  2 * stats.t.sf(abs(t.estimate) * np.sqrt(t.n_samples) / t.sd, t.n_samples - 1) for t in tests])
    order, holm = np.argsort(p), np.empty_like(p)
    holm[order] = np.minimum(1.0, np.maximum.accumulate((p.size - np.arange(p.size)) * p[order]))
    return tuple(Decision(t, float(q), _Verdict("loses" if q < alpha and t.estimate > 0 else "equivalent" if
                                                t.equivalent else "undetermined")) for t, q in zip(tests, holm))


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
    """Train one ensemble of ``seeds`` per encoding (none, low-rank of each of ``ranks``, full) on the block-swap task.

    The task: sequences from ``mu`` cut into ``n_blocks`` equal blocks (must divide ``n``), half of them (label 1) with
    two blocks exchanged. Seed ``s`` draws its ``n_train`` training and ``n_test`` test sequences from
    ``default_rng([s, 0])`` and ``default_rng([s, 1])`` and fixes the initialisation and batch order
    (:func:`posgeom.nn.fit_ensemble`); every encoding gets the same seeds (paired), one independent run each.

    Parameters
    ----------
    mu : (n, V) array of positional distributions
    n_blocks, n_train, n_test, d_model, n_heads : int
    ranks, seeds : sequence of int
    config : posgeom.nn.TrainConfig

    Returns
    -------
    RankComparison
    """
    n = (mu := np.asarray(mu, dtype=float)).shape[0]
    if n % (K := check_positive_int(n_blocks, "n_blocks", minimum=2)):
        raise ValueError(f"n_blocks={K} must divide the number of positions {n}")
    seeds, sizes = check_seeds(seeds), (check_positive_int(n_train, "n_train"), check_positive_int(n_test, "n_test"))
    train, test = ([_block_swap_task(mu, sizes[k], K, np.random.default_rng([s, k])) for s in seeds] for k in (0, 1))
    V = int(max(d.X.max() for d in (*train, *test))) + 1
    arms = [("none", "none", None)] + [(f"rank {r}", "low_rank", int(r)) for r in ranks] + [("full", "learned", None)]
    acc = []
    for _, scheme, r in arms:
        spec = ModelSpec(vocab_size=V, n_positions=n, d_model=d_model, n_heads=n_heads, positional=scheme, rank=r)
        acc.append([m.accuracy(data) for m, data in zip(fit_ensemble(spec, train, seeds=seeds, config=config), test)])
    params = tuple(0 if s == "none" else (n * d_model if r is None else r * (n + d_model)) for _, s, r in arms)
    return RankComparison(tuple(a[0] for a in arms), params, np.array(acc), seeds)
