"""The stress table on each rung of the subsampling ladder (:func:`stress_ladder`, :class:`StressLadder`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..corpus.incidence import SequenceIncidence
from ..geometry._crossfit import distances_from_squared
from ..geometry.ladder import Ladder, stability_ladder
from ..inference._bootstrap import difference
from .candidates import Candidate
from .results import row_index
from .table import evaluate_rows

__all__ = ["stress_ladder"]


@dataclass(frozen=True)
class StressLadder:
    """Scale-optimal stress of several rows on every rung of a subsampling ladder (:func:`stress_ladder`).

    Attributes
    ----------
    names, n_texts : tuple of str, tuple of int (the rows, in order; the texts on each rung)
    ladder : posgeom.geometry.Ladder
        The bootstrap of the rows' scale-optimal stress on each rung (all rows on the same resamples).
    estimand, title : str, what ``D`` estimates on every rung; free text
    estimator : object
        The estimator of ``D`` on every rung (its resolution fixed), to estimate the same estimand elsewhere.

    Examples
    --------
    >>> _toy_ladder().estimates.shape
    (2, 2)
    """
    names: tuple
    ladder: Ladder
    estimand: str
    n_texts: tuple
    title: str = ""
    estimator: object = None

    @property
    def target(self) -> np.ndarray:
        """The whole corpus's estimate of ``D`` (the point estimate of the first rung)."""
        return self.ladder.rungs[0].point.distances

    @property
    def fractions(self) -> tuple:
        """The rungs (shares of the texts), the whole corpus first."""
        return self.ladder.fractions

    @property
    def estimates(self) -> np.ndarray:
        """Scale-optimal stress, shape ``(rungs, rows)``."""
        return self.ladder.estimates

    @property
    def lower(self) -> np.ndarray:
        """Lower interval ends, shape ``(rungs, rows)``."""
        return self.ladder.lower

    @property
    def upper(self) -> np.ndarray:
        """Upper interval ends, shape ``(rungs, rows)``."""
        return self.ladder.upper

    def holds_still(self, *, alpha: float = 0.01) -> bool:
        """Whether no rung misses the whole corpus's stresses more often than chance allows (``Ladder.holds_still``).

        Parameters
        ----------
        alpha : float, default 0.01

        Returns
        -------
        bool

        Examples
        --------
        >>> _toy_ladder().holds_still()
        True
        """
        return self.ladder.holds_still(alpha=alpha)

    def verdict(self, a: str, b: str) -> str:
        """``"a < b"``, ``"a > b"`` or ``"undetermined"``: ranked only if :meth:`contrast` excludes 0 on one side on
        every rung.

        Parameters
        ----------
        a, b : str

        Returns
        -------
        str

        Examples
        --------
        >>> _toy_ladder().verdict("x", "y")
        'x < y'
        """
        outcome = self.ladder.decide(row_index(self.names, a), row_index(self.names, b)).outcome
        return {"lower": f"{a} < {b}", "higher": f"{a} > {b}"}.get(outcome, "undetermined")

    def contrast(self, a: str, b: str) -> np.ndarray:
        """``stress*(a) - stress*(b)`` on each rung, paired: rows ``(estimate, lower, upper)``.

        Parameters
        ----------
        a, b : str

        Returns
        -------
        ndarray, shape ``(rungs, 3)``

        Examples
        --------
        >>> _toy_ladder().contrast("x", "y")[0].round(2)
        array([-2.  , -2.95, -1.05])
        """
        ia, ib = row_index(self.names, a), row_index(self.names, b)
        return np.array([(d.estimate, d.lower, d.upper) for d in (difference(r, ia, ib) for r in self.ladder.rungs)])

    def equivalent(self, a: str, b: str, margin: float) -> bool:
        """Whether ``posgeom.inference.decide`` calls the pair equivalent within ``margin > 0`` (fixed first) on every
        rung.

        Parameters
        ----------
        a, b, margin : str, str, float

        Returns
        -------
        bool

        Examples
        --------
        >>> _toy_ladder().equivalent("x", "y", 0.5), _toy_ladder().equivalent("x", "x", 0.5)
        (False, True)
        """
        if not float(margin) > 0:
            raise ValueError(f"margin must be positive, got {margin}")
        decision = self.ladder.decide(row_index(self.names, a), row_index(self.names, b), margin=float(margin))
        return decision.outcome == "equivalent"


def _toy_ladder() -> StressLadder:
    """A two-row, two-rung ladder for the examples (``x`` at 0.5, ``y`` at 2.5)."""
    from ..inference import BootstrapEstimate
    reps = np.column_stack([np.linspace(0, 1, 51), np.linspace(3, 2, 51)])
    r = BootstrapEstimate(np.array([0.5, 2.5]), reps, np.array([0.0, 2.0]), np.array([1.0, 3.0]), 0, 0, 0.95,
                          "percentile", "toy")
    return StressLadder(("x", "y"), Ladder((1.0, 0.5), (r, r), "toy"), "toy", (100, 50))


def stress_ladder(candidates: Sequence[Candidate], data: SequenceIncidence, *, estimator: object = None,
                  rng: int | np.random.Generator, n_resamples: int = 100,
                  fractions: Sequence[float] = (1.0, 0.5, 0.25, 0.125), confidence: float = 0.95, title: str = "",
                  groups: ArrayLike | None = None, positions: slice | None = None) -> StressLadder:
    """Scale-optimal stress of every row, with intervals, on fresh random shares of the texts (all, 1/2, 1/4, 1/8).

    ``D`` is estimated on each rung with ``estimator`` (default ``Resolved()``), its resolution fixed for the smallest
    rung (one estimand on every rung); all rows are evaluated on the same resamples.

    Parameters
    ----------
    candidates : sequence of Candidate with unique names
    data : SequenceIncidence
    estimator : PlugIn, CrossFitted or Resolved, optional
    rng : int or numpy.random.Generator
    n_resamples, fractions, confidence, title : int, sequence of float, float, str
    groups : (n_texts,) array, optional
        One label per text, the unit of resampling: rungs and splits keep groups whole (``n_texts`` then approximate).
    positions : slice, optional
        Score rows built for a block of the window on ``D[positions, positions]`` of each whole-window estimate.

    Returns
    -------
    StressLadder

    Examples
    --------
    >>> from posgeom.corpus import SequenceIncidence, synthetic_corpus
    >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(1600, 6, 20, rng=0, regime="abrupt"), 6, 20)
    >>> stress_ladder([Candidate("constant", "", lambda D: 1 - np.eye(6))], inc, rng=0, n_resamples=30).n_texts
    (1600, 800, 400, 200)
    """
    from ..geometry.estimators import Resolved
    candidates = list(candidates)
    if not candidates:
        raise ValueError("candidates is empty; pass e.g. standard_candidates(n)")
    names = tuple(c.name for c in candidates)
    if len(set(names)) != len(names):
        raise ValueError(f"candidate names must be unique, got {list(names)}")
    block = slice(None) if positions is None else positions
    if not isinstance(block, slice) or len(kept := range(data.n_positions)[block]) < 3:
        raise ValueError(f"positions must be a slice keeping at least 3 of the {data.n_positions}, got {positions!r}")
    estimator = Resolved() if estimator is None else estimator
    estimator = estimator.planned(data, fraction=min(float(f) for f in fractions))
    def statistic(Q):
        return evaluate_rows(candidates, distances_from_squared(Q[block, block]))[1::3]
    lad = stability_ladder(estimator, data, statistic=statistic, fractions=fractions, rng=rng,
                           n_resamples=n_resamples, confidence=confidence, groups=groups)
    texts = tuple(int(round(float(f) * data.n_sequences)) for f in lad.fractions)  # with groups: about
    estimand = estimator.describe_estimand(data) + ("" if positions is None else f"; positions {kept[0]} to {kept[-1]}")
    return StressLadder(names=names, ladder=lad, estimand=estimand, n_texts=texts, title=title, estimator=estimator)
