"""MDS tested out of sample (:func:`~posgeom.stress.split_half_stress`, :class:`SplitHalfStress`): fitted on one
half of the texts, scored against the other half's distances."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..corpus.incidence import SequenceIncidence

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .._validation import check_positive_int, check_rng
from .candidates import Candidate
from .core import stress_of_distances
from .results import row_index

__all__ = ["split_half_stress"]

REFERENCE = "split-half reference"


@dataclass(frozen=True)
class SplitHalfStress:
    """Out-of-sample scale-optimal stress (:func:`~posgeom.stress.split_half_stress`).

    Attributes
    ----------
    names, estimand : tuple of str, str
        The rows, then ``"split-half reference"`` (``D_A`` scored against ``D_B``); what ``D_A``, ``D_B`` estimate.
    values : ndarray, shape ``(n_splits, len(names))``
        Scale-optimal stress against half B's distances, one row per random split.

    Examples
    --------
    >>> SplitHalfStress(("MDS", "split-half reference"), np.array([[0.1, 0.2], [0.3, 0.4]])).values.shape
    (2, 2)
    """
    names: tuple
    values: np.ndarray
    estimand: str = ""

    def column(self, name: str) -> np.ndarray:
        """One row's stress over the random splits.

        Parameters
        ----------
        name : str

        Returns
        -------
        ndarray, shape ``(n_splits,)``

        Examples
        --------
        >>> SplitHalfStress(("MDS", "split-half reference"), np.array([[0.1, 0.2], [0.3, 0.4]])).column("MDS")
        array([0.1, 0.3])
        """
        return self.values[:, row_index(self.names, name)]

    def mean(self, name: str) -> float:
        """Mean over the random splits of one row's out-of-sample stress.

        Parameters
        ----------
        name : str

        Returns
        -------
        float

        Examples
        --------
        >>> SplitHalfStress(("MDS", "split-half reference"), np.array([[0.1, 0.2], [0.3, 0.4]])).mean("MDS")
        0.2
        """
        return float(self.column(name).mean())

    def paired(self, a: str, b: str) -> tuple:
        """``(mean, min, max)`` over the random splits of ``stress*(a) - stress*(b)``, paired on each split.

        Parameters
        ----------
        a, b : str

        Returns
        -------
        tuple of float

        Examples
        --------
        >>> s = SplitHalfStress(("MDS", "split-half reference"), np.array([[0.1, 0.3], [0.3, 0.2]]))
        >>> tuple(round(x, 6) for x in s.paired("MDS", "split-half reference"))
        (-0.05, -0.2, 0.1)
        """
        d = self.column(a) - self.column(b)
        return float(d.mean()), float(d.min()), float(d.max())


def split_half_stress(candidates: Sequence[Candidate], data: SequenceIncidence, *, estimator: object = None,
                      rng: int | np.random.Generator, n_splits: int = 5) -> SplitHalfStress:
    """Fit every fitted row (MDS) on half A's distances; score it and every fixed row against half B's.

    For each random split of the texts into halves A and B, ``D_A`` and ``D_B`` are estimated with ``estimator``
    (its resolution fixed once for a half: one estimand); every row is scored by ``stress*(E; D_B)``. The last column,
    the **split-half reference** ``stress*(D_A; D_B)``, carries the noise of both halves: a reference, not a floor.

    Parameters
    ----------
    candidates, data : sequence of Candidate, SequenceIncidence
    estimator : Resolved, CrossFitted or PlugIn, default ``Resolved()``
    rng, n_splits : int or numpy.random.Generator, int

    Returns
    -------
    SplitHalfStress

    Examples
    --------
    >>> from posgeom.corpus import SequenceIncidence, synthetic_corpus
    >>> from posgeom.stress import mds_candidate
    >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(1600, 6, 20, rng=0, regime="abrupt"), 6, 20)
    >>> split_half_stress([mds_candidate(rank=None, name="MDS")], inc, rng=0, n_splits=2).names
    ('MDS', 'split-half reference')
    """
    from ..corpus.incidence import SequenceIncidence, check_incidence
    from ..geometry.estimators import Resolved
    from ..geometry.ladder import contiguous_tokens
    check_incidence(data)
    candidates = list(candidates)
    if not candidates:
        raise ValueError("candidates is empty")
    gen = check_rng(rng)
    n_splits = check_positive_int(n_splits, "n_splits")
    estimator = Resolved() if estimator is None else estimator
    estimator = estimator.planned(data, fraction=0.5)
    tokens = contiguous_tokens(data)
    m = data.n_sequences
    values = []
    for _ in range(n_splits):
        in_a = np.zeros(m, dtype=bool)
        in_a[gen.choice(m, size=m // 2, replace=False)] = True
        halves = []
        for mask in (in_a, ~in_a):
            part = SequenceIncidence.from_contiguous(tokens[np.repeat(mask, data.lengths)], data.lengths[mask],
                                                     data.n_positions, data.vocab_size)
            halves.append(estimator.distances(part, rng=gen).distances)
        D_A, D_B = halves
        row = [stress_of_distances(c.distances(D_A), D_B, scale="optimal") for c in candidates]
        row.append(stress_of_distances(D_A, D_B, scale="optimal"))
        values.append(row)
    names = tuple(c.name for c in candidates) + (REFERENCE,)
    return SplitHalfStress(names=names, values=np.array(values), estimand=estimator.describe_estimand(data))
