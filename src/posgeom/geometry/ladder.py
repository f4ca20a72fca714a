"""Checks that an estimand holds still: ``flat_corpus``, ``subsample``, ``stability_ladder`` and its ``Ladder``."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from .._validation import check_rng
from ..corpus.incidence import SequenceIncidence, check_incidence
from ..inference import Decision, decide, decide_ladder
from ..inference._bootstrap import Units, difference

__all__ = ["flat_corpus", "subsample", "stability_ladder"]


def contiguous_tokens(inc: SequenceIncidence) -> np.ndarray:
    """The tokens text after text; raises unless the texts fill positions ``0 .. length - 1``."""
    position = inc.positions[inc.cell]
    starts = np.repeat(inc.indptr[:-1], inc.lengths)
    if not np.array_equal(position, np.arange(inc.cell.size) - starts):
        raise ValueError("the texts must fill positions 0, 1, ..., length - 1 (no gaps)")
    return inc.tokens[inc.cell]


def flat_corpus(data: SequenceIncidence, *, rng: int | np.random.Generator,
                keep_edges: bool = False) -> SequenceIncidence:
    """A flat control: the corpus's tokens pooled, shuffled and dealt back into texts of the same lengths.

    Parameters
    ----------
    data : SequenceIncidence
    rng : int or numpy.random.Generator
    keep_edges : bool, default False
        Keep each text's first and last token (BERT's ``[CLS]`` and ``[SEP]``) in place.

    Returns
    -------
    SequenceIncidence

    Examples
    --------
    >>> flat_corpus(SequenceIncidence.from_sequences([[0, 0, 0], [1, 1], [2]], 3, 3), rng=0).lengths
    array([3, 2, 1])
    """
    inc = check_incidence(data)
    gen = check_rng(rng)
    if not isinstance(keep_edges, bool):
        raise TypeError(f"keep_edges must be True or False, got {keep_edges!r}")
    tokens = contiguous_tokens(inc).copy()
    if keep_edges:
        ends = np.cumsum(inc.lengths)
        inner = np.ones(tokens.size, dtype=bool)
        inner[ends - inc.lengths] = inner[ends - 1] = False
        middle = tokens[inner]
        gen.shuffle(middle)
        tokens[inner] = middle
    else:
        gen.shuffle(tokens)
    return SequenceIncidence.from_contiguous(tokens, inc.lengths, inc.n_positions, inc.vocab_size)


def _kept(inc: SequenceIncidence, fraction: float, gen: np.random.Generator, groups) -> np.ndarray | None:
    """The texts a rung keeps (sorted indices; ``None``: all of them), whole groups when ``groups`` is given."""
    if not 0 < float(fraction) <= 1:
        raise ValueError(f"fraction must lie in (0, 1], got {fraction}")
    units = Units(inc.n_sequences, groups=groups)
    k = int(round(float(fraction) * units.n_units))
    if k == units.n_units and inc.n_sequences >= 4:
        return None
    keep = np.sort(units.texts(np.sort(gen.choice(units.n_units, size=k, replace=False))))
    if keep.size < 4:
        raise ValueError(f"fraction {fraction} keeps {keep.size} of {inc.n_sequences} texts; at least 4 are needed")
    return keep


def _subset(inc: SequenceIncidence, keep: np.ndarray) -> SequenceIncidence:
    """The texts ``keep`` (sorted) of an incidence, their cells renumbered in order."""
    take = np.zeros(inc.n_sequences, dtype=bool)
    take[keep] = True
    cell = inc.cell[np.repeat(take, inc.lengths)]
    used = np.bincount(cell, minlength=inc.cells.size) > 0
    indptr = np.concatenate([[0], np.cumsum(inc.lengths[keep])])
    return SequenceIncidence(indptr, (np.cumsum(used) - 1)[cell], inc.cells[used], inc.n_positions, inc.vocab_size)


def subsample(data: SequenceIncidence, fraction: float, *, rng: int | np.random.Generator,
              groups: ArrayLike | None = None) -> SequenceIncidence:
    """A random share ``round(fraction * m)`` of the ``m`` texts (or groups), without replacement, order kept.

    Parameters
    ----------
    data : SequenceIncidence
    fraction : float, in ``(0, 1]``
    rng : int or numpy.random.Generator
    groups : (n_texts,) array, optional, a label per text (default: every text is its own group)

    Returns
    -------
    SequenceIncidence

    Examples
    --------
    >>> subsample(SequenceIncidence.from_sequences([[0, 1]] * 8, 2, 2), 0.5, rng=0, groups=[0, 0, 1, 1, 2, 2, 3, 3])
    SequenceIncidence(4 sequences, 8 tokens, n_positions=2, vocab_size=2, 2 distinct cells)
    """
    inc = check_incidence(data)
    keep = _kept(inc, fraction, check_rng(rng), groups)
    return inc if keep is None else _subset(inc, keep)


@dataclass(frozen=True)
class Ladder:
    """One estimand re-estimated on random shares of the texts (``stability_ladder``), the whole corpus first.

    Attributes
    ----------
    fractions : tuple of float
    rungs : tuple of BootstrapEstimate
    estimator : str

    Examples
    --------
    >>> from posgeom.inference import BootstrapEstimate
    >>> r = BootstrapEstimate(1.0, np.zeros(2), 0.5, 1.5, 0.0, 0.0, 0.95, "percentile", "toy")
    >>> Ladder((1.0, 0.5), (r, r), "toy").covered()
    array([ True])
    """
    fractions: tuple
    rungs: tuple
    estimator: str

    @property
    def estimates(self) -> np.ndarray:
        """The estimates, one row per rung."""
        return np.stack([np.asarray(r.estimate) for r in self.rungs])

    @property
    def lower(self) -> np.ndarray:
        """Lower ends of the intervals, one row per rung."""
        return np.stack([np.asarray(r.lower) for r in self.rungs])

    @property
    def upper(self) -> np.ndarray:
        """Upper ends of the intervals, one row per rung."""
        return np.stack([np.asarray(r.upper) for r in self.rungs])

    def covered(self) -> np.ndarray:
        """Whether each rung's interval below the top contains the whole corpus's estimate.

        Returns
        -------
        ndarray of bool, shape ``(rungs - 1, *statistic shape)``

        Examples
        --------
        >>> from posgeom.inference import BootstrapEstimate
        >>> r = BootstrapEstimate(1.0, np.zeros(2), 0.5, 1.5, 0.0, 0.0, 0.95, "percentile", "toy")
        >>> Ladder((1.0, 0.5), (r, r), "toy").covered().shape
        (1,)
        """
        top = self.estimates[0]
        return (self.lower[1:] <= top) & (top <= self.upper[1:])

    def decide(self, a: int, b: int | None = None, *, margin: float = 0.0, threshold: float = 0.0,
               label: str = "") -> Decision:
        """``decide_ladder`` of ``decide`` on each rung: component ``a`` against ``b`` (paired) or ``threshold``.

        Parameters
        ----------
        a, b : int
            Components of the statistic (flattened); ``b=None`` compares ``a`` with ``threshold``.
        margin, threshold : float, default 0.0
        label : str, optional

        Returns
        -------
        Decision

        Examples
        --------
        >>> from posgeom.inference import BootstrapEstimate
        >>> r = BootstrapEstimate(np.array([0.5, 2.5]), np.zeros((2, 2)), np.zeros(2), np.ones(2), 0, 0, 0.95, "p", "t")
        >>> Ladder((1.0, 0.5), (r, r), "toy").decide(0, threshold=-1.0).outcome
        'higher'
        """
        return decide_ladder([decide(difference(r, a, b, threshold=threshold), margin=margin) for r in self.rungs],
                             label=label)

    def holds_still(self, *, alpha: float = 0.01) -> bool:
        """Whether no rung misses the whole corpus's estimate more often than chance allows.

        Without drift a component is missed with probability at most ``1 - confidence``; a rung fails if its misses
        exceed the ``1 - alpha`` quantile of ``Binomial(k, 1 - confidence)``.

        Parameters
        ----------
        alpha : float, default 0.01

        Returns
        -------
        bool

        Examples
        --------
        >>> from posgeom.inference import BootstrapEstimate
        >>> r = BootstrapEstimate(np.ones(3), np.zeros((2, 3)), np.zeros(3), 2 * np.ones(3), 0, 0, 0.95, "p", "t")
        >>> Ladder((1.0, 0.5), (r, r), "toy").holds_still()
        True
        """
        if len(self.fractions) < 2:  # the whole corpus alone: no rung to miss it
            return True
        cov = self.covered().reshape(len(self.fractions) - 1, -1)
        k = cov.shape[1]
        conf = float(self.rungs[0].confidence)
        allowed = stats.binom.ppf(1 - alpha, k, 1 - conf)
        return bool(np.all((~cov).sum(axis=1) <= allowed))


def stability_ladder(estimator: object, data: object, *, statistic: Callable | None = None,
                     fractions: Sequence[float] = (1.0, 0.5, 0.25, 0.125), rng: int | np.random.Generator,
                     n_resamples: int = 200, confidence: float = 0.95, groups: ArrayLike | None = None) -> Ladder:
    """Re-estimate a statistic of the distances on random shares of the texts, with an interval on each rung.

    Parameters
    ----------
    estimator : PlugIn, CrossFitted or Resolved
        Planned for the smallest rung first (``Estimator.planned``): every rung estimates one estimand.
    data : SequenceIncidence
    statistic : callable, optional, ``statistic(Q)`` of the squared distances (default ``Q``)
    fractions : sequence of float, default ``(1, 1/2, 1/4, 1/8)``
        Starting with 1; each rung a fresh random share of the whole corpus.
    rng : int or numpy.random.Generator
    n_resamples : int, default 200
    confidence : float, default 0.95
    groups : (n_texts,) array, optional
        Texts with one label are kept, left out and resampled together.

    Returns
    -------
    Ladder

    Examples
    --------
    >>> from posgeom.corpus import synthetic_corpus
    >>> from posgeom.geometry import Resolved
    >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(1600, 4, 20, rng=0), 4, 20)
    >>> stability_ladder(Resolved(), inc, statistic=lambda Q: Q[0, 3], rng=0, n_resamples=50).holds_still()
    True
    """
    inc = check_incidence(data)
    gen = check_rng(rng)
    fractions = tuple(float(f) for f in fractions)
    if not fractions or fractions[0] != 1.0 or any(not 0 < f <= 1 for f in fractions):
        raise ValueError(f"fractions must start with 1 and lie in (0, 1], got {fractions}")
    estimator = estimator.planned(inc, fraction=min(fractions))
    rungs = []
    for f in fractions:
        keep = _kept(inc, f, gen, groups)
        part = inc if keep is None else _subset(inc, keep)
        labels = groups if keep is None or groups is None else np.asarray(groups)[keep]
        rungs.append(estimator.bootstrap(part, n_resamples=n_resamples, rng=gen, statistic=statistic,
                                         confidence=confidence, groups=labels))
    return Ladder(fractions=fractions, rungs=tuple(rungs), estimator=rungs[0].label)
