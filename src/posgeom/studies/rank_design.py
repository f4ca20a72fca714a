"""Chapter 6: does a learned table need ``rank(B)`` directions? :func:`rank_comparison` on the block-swap task;
its design's command: ``python -m posgeom.studies.rank_design DESIGN OUT``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_positive_int, check_seeds
from ..corpus.synthetic import sample_sequences, synthetic_distributions
from ..nn import ModelSpec, TrainConfig, fit_ensemble
from ..nn.tasks import TaskData

__all__ = ["rank_comparison"]


def _block_swap_task(mu: np.ndarray, n_sequences: int, n_blocks: int, rng: np.random.Generator) -> TaskData:
    """Sequences from ``mu``, half of them (label 1) with two random blocks of positions exchanged."""
    X = sample_sequences(mu, n_sequences, rng=rng)
    y = rng.integers(0, 2, n_sequences)
    blocks = X.reshape(n_sequences, n_blocks, -1)
    for i in np.flatnonzero(y):
        a, b = rng.choice(n_blocks, 2, replace=False)
        blocks[i, [a, b]] = blocks[i, [b, a]]
    return TaskData(blocks.reshape(n_sequences, -1), y.astype(np.int64), None)


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
    """Train one ensemble of ``seeds`` per encoding (none, low-rank of each of ``ranks``, full) on the block-swap
    task: sequences from ``mu`` in ``n_blocks`` equal blocks, half of them (label 1) with two blocks exchanged.
    Seed ``s`` draws ``n_train`` training and ``n_test`` test sequences from ``default_rng([s, 0])`` and
    ``default_rng([s, 1])`` and fixes the initialisation and batch order; every encoding gets the same seeds."""
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


def design_runs(design) -> RankComparison:
    """The runs a design file (``ch06_rank``, or ``ch06_exploratory``) fixes, on its seeds."""
    mu = synthetic_distributions(16, 32, rng=0, regime="abrupt", n_topics=4)
    return rank_comparison(mu, n_blocks=4, n_train=800, n_test=2000, ranks=(1, 2, 3), seeds=design.seeds,
                           config=TrainConfig(epochs=30, lr=2e-2, batch_size=200), d_model=8)


if __name__ == "__main__":  # pragma: no cover - the design's command
    from .designs import main
    main(design_runs)
