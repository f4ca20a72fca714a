"""The resolved estimate at a grid of ``K`` and ``m*``, same splits: ``resolution_sweep``, ``ResolutionSweep``."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

import numpy as np
from numpy.typing import ArrayLike

from .._blas import single_threaded_blas
from .._validation import check_positive_int, check_rng
from ..corpus.incidence import SequenceIncidence, check_incidence
from ..inference._bootstrap import Units
from .resolved import EqualReach, Resolution, choose_resolution

__all__ = ["resolution_sweep"]


@dataclass(frozen=True)
class ResolutionSweep:
    """Resolved squared distances of one corpus at several resolutions, all from the same random splits.

    Attributes
    ----------
    resolutions : tuple of Resolution
    squared : ndarray, shape ``(len(resolutions), n, n)``
    mass_kept : ndarray, shape ``(len(resolutions),)``
        The share of the probability mass the kept tokens hold, averaged over the positions.
    rule : Resolution, the one the stated rule picks (``choose_resolution``)

    Examples
    --------
    >>> r = Resolution((0,), 5, 2)
    >>> ResolutionSweep((r,), np.full((1, 2, 2), 0.25), np.ones(1), r).squared.shape
    (1, 2, 2)
    """
    resolutions: tuple
    squared: np.ndarray
    mass_kept: np.ndarray
    rule: Resolution


def resolution_sweep(data: SequenceIncidence, *, rng: int | np.random.Generator,
                     n_tokens: Sequence[int] | None = None, texts_per_position: Sequence[int] | None = None,
                     n_splits: int = 20, fraction: float = 1.0, groups: ArrayLike | None = None) -> ResolutionSweep:
    """The resolved estimate at a grid ``n_tokens x texts_per_position`` (``K`` fastest), from the same splits.

    Parameters
    ----------
    data : SequenceIncidence
    rng : int or numpy.random.Generator
    n_tokens, texts_per_position : sequence of int, optional
        The ``K`` and ``m*`` values; default the rule's.
    n_splits : int, default 20
    fraction : float, default 1.0
    groups : (n_texts,) array, optional

    Returns
    -------
    ResolutionSweep

    Examples
    --------
    >>> from posgeom.corpus import SequenceIncidence, synthetic_corpus
    >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(400, 4, 20, rng=0), 4, 20)
    >>> resolution_sweep(inc, rng=0, texts_per_position=(40, 80), n_splits=3).squared.shape
    (2, 4, 4)
    """
    inc = check_incidence(data)
    gen = check_rng(rng)
    n_splits = check_positive_int(n_splits, "n_splits", minimum=2)
    rule = choose_resolution(inc, fraction=fraction)
    ks = (len(rule.tokens),) if n_tokens is None else tuple(int(k) for k in n_tokens)
    ms = (rule.texts_per_position,) if texts_per_position is None else tuple(int(m) for m in texts_per_position)
    grid = tuple(choose_resolution(inc, fraction=fraction, texts_per_position=m, n_tokens=k)
                 for m, k in product(ms, ks))
    units = Units(inc.n_sequences, groups=groups)
    orders = [gen.permutation(units.n_units) for _ in range(n_splits)]
    squared = np.empty((len(grid), inc.n_positions, inc.n_positions))
    with single_threaded_blas():
        for g, res in enumerate(grid):
            engine = EqualReach(inc, res)
            total = np.zeros_like(squared[g])
            for s, order in enumerate(orders):
                Q = engine.split(*units.halves(order), spread=units.grouped)
                if Q is None:
                    raise ValueError(f"split {s}: a half holds fewer than m*={res.texts_per_position} texts at some "
                                     "position; use a smaller texts_per_position")
                total += Q
            squared[g] = total / n_splits
    totals = inc.sequences_per_position()
    mass = []
    for res in grid:
        kept = np.isin(inc.tokens, np.asarray(res.tokens, dtype=int))
        per_position = np.bincount(inc.positions[kept], weights=inc.cell_counts()[kept], minlength=inc.n_positions)
        mass.append(float(np.mean(per_position / totals)))
    return ResolutionSweep(resolutions=grid, squared=squared, mass_kept=np.array(mass), rule=rule)
