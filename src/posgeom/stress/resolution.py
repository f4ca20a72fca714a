"""Verdicts across resolutions: a paired stress difference at every ``K`` a corpus supports, with the mass kept.

* :func:`stress_across_resolutions`: the paired scale-optimal stress difference of named pairs of rows at a grid of
  vocabulary resolutions ``K`` (``m*`` fixed), on a corpus and optionally on a control paired with it by text, and
  net of that control; each with its interval, read by :func:`posgeom.inference.decide`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_rng
from ..corpus.incidence import SequenceIncidence, check_incidence
from ..geometry._crossfit import distances_from_squared
from ..inference import decide
from ..inference._bootstrap import BootstrapEstimate, difference
from .candidates import Candidate
from .table import evaluate_rows

__all__ = ["stress_across_resolutions"]


@dataclass(frozen=True)
class ResolutionVerdicts:
    """Paired stress differences of pairs of rows at several resolutions (:func:`stress_across_resolutions`).

    Attributes
    ----------
    pairs : tuple of (str, str)
        The compared rows ``(a, b)``; each difference is ``stress*(a) - stress*(b)``.
    n_tokens : tuple of int
        The resolutions ``K`` (the ``K`` most frequent tokens keep their own cells), increasing.
    mass_kept : ndarray, shape ``(len(n_tokens),)``
        Share of the probability mass the kept tokens hold, averaged over the positions.
    texts_per_position : int
        ``m*``, the same at every ``K``.
    intervals : dict of str to ndarray, shape ``(len(n_tokens), len(pairs), 3)``
        ``(estimate, lower, upper)`` (centred percentile intervals) for ``"corpus"``, and with a control also for
        ``"control"`` and ``"net"`` (corpus minus control, on the same resampled text indices).

    Examples
    --------
    >>> v = _toy_verdicts()
    >>> v.verdict("x", "y"), v.verdict("x", "y", which="control")
    ('x < y', 'depends on resolution (lower at K=2, undetermined from K=8)')
    """

    pairs: tuple
    n_tokens: tuple
    mass_kept: np.ndarray
    texts_per_position: int
    intervals: dict

    def _pair(self, a: str, b: str) -> int:
        try:
            return self.pairs.index((a, b))
        except ValueError:
            raise KeyError(f"no pair {(a, b)!r}; pairs are {list(self.pairs)}") from None

    def outcomes(self, a: str, b: str, *, which: str = "corpus") -> tuple:
        """The :func:`posgeom.inference.decide` outcome of ``a - b`` at each ``K`` (margin 0).

        Parameters
        ----------
        a, b : str
        which : {"corpus", "control", "net"}

        Returns
        -------
        tuple of str

        Examples
        --------
        >>> _toy_verdicts().outcomes("x", "y", which="control")
        ('lower', 'undetermined')
        """
        if which not in self.intervals:
            raise KeyError(f"which must be one of {list(self.intervals)}, got {which!r}")
        rows = self.intervals[which][:, self._pair(a, b)]
        return tuple(decide(_Interval(*r)).outcome for r in rows)

    def verdict(self, a: str, b: str, *, which: str = "corpus") -> str:
        """``"a < b"`` or ``"a > b"`` if ranked so at every ``K``, ``"undetermined"`` if at none, else the change.

        Parameters
        ----------
        a, b : str
        which : {"corpus", "control", "net"}

        Returns
        -------
        str
            ``"depends on resolution (<outcome> at K=<first>, <outcome> from K=<k>)"`` names the first ``K`` where
            the outcome changes.

        Examples
        --------
        >>> _toy_verdicts().verdict("x", "y", which="net")
        'x < y'
        """
        out = self.outcomes(a, b, which=which)
        if len(set(out)) == 1:
            return {"lower": f"{a} < {b}", "higher": f"{a} > {b}"}.get(out[0], "undetermined")
        k = next(i for i, o in enumerate(out) if o != out[0])
        return f"depends on resolution ({out[0]} at K={self.n_tokens[0]}, {out[k]} from K={self.n_tokens[k]})"

    def to_frame(self, which: str = "corpus"):
        """One row per ``K``: the mass kept and each pair's ``estimate [lower, upper]`` (a ``pandas.DataFrame``).

        Parameters
        ----------
        which : {"corpus", "control", "net"}

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> _toy_verdicts().to_frame().shape
        (2, 2)
        """
        import pandas as pd

        cols = {"mass kept": [f"{m:.0%}" for m in self.mass_kept]}
        for p, (a, b) in enumerate(self.pairs):
            cols[f"{a} − {b}"] = [f"{e:+.3f} [{lo:+.3f}, {hi:+.3f}]" for e, lo, hi in self.intervals[which][:, p]]
        return pd.DataFrame(cols, index=pd.Index(self.n_tokens, name="K"))


@dataclass(frozen=True)
class _Interval:
    """An ``(estimate, lower, upper)`` triple for :func:`posgeom.inference.decide`."""

    estimate: float
    lower: float
    upper: float


def _toy_verdicts() -> ResolutionVerdicts:
    """Two resolutions, one pair: ``x - y`` below 0 at both on the corpus, only at ``K = 2`` on the control."""
    corpus = np.array([[[-0.2, -0.3, -0.1]], [[-0.2, -0.25, -0.15]]])
    control = np.array([[[-0.1, -0.15, -0.05]], [[0.0, -0.05, 0.05]]])
    return ResolutionVerdicts((("x", "y"),), (2, 8), np.array([0.4, 0.7]), 100,
                              {"corpus": corpus, "control": control, "net": corpus - np.abs(control)})


def stress_across_resolutions(candidates: Sequence[Candidate], data: SequenceIncidence, *,
                              n_tokens: Sequence[int], pairs: Sequence[tuple], rng: int | np.random.Generator,
                              control: SequenceIncidence | None = None, texts_per_position: int | None = None,
                              fraction: float = 0.125, n_resamples: int = 100, confidence: float = 0.95,
                              n_splits: int = 20, groups: ArrayLike | None = None) -> ResolutionVerdicts:
    """The paired stress difference of each pair of rows at each resolution ``K``, with intervals and mass kept.

    At every ``K`` the resolved estimator (:class:`posgeom.geometry.Resolved`, ``m*`` fixed) is bootstrapped on the
    texts (or on ``groups`` of them) and every row is scored on the same resamples. A ``control`` with the same
    number of texts and the same lengths (e.g. :func:`posgeom.geometry.flat_corpus` of ``data``) is bootstrapped
    with the same seed, so its resamples draw the same text indices and splits: the net difference ``corpus -
    control`` is paired by text.

    Parameters
    ----------
    candidates : sequence of Candidate
        Rows that ``pairs`` name (fixed encodings; fitted rows are refitted on each resample).
    data : SequenceIncidence
    n_tokens : sequence of int
        The resolutions ``K``; sorted increasing.
    pairs : sequence of (str, str)
        ``(a, b)`` for the difference ``stress*(a) - stress*(b)``.
    rng : int or numpy.random.Generator
    control : SequenceIncidence, optional
        Same texts' lengths, built to lack what the claim is about (paired by text index).
    texts_per_position : int, optional
        ``m*``; default the rule's (:func:`posgeom.geometry.choose_resolution`) for a subsample of ``fraction``.
    fraction : float, default 1/8
        The smallest rung the estimand is planned for (the stress ladder's).
    n_resamples : int, default 100
    confidence : float, default 0.95
    n_splits : int, default 20
        Random splits of the point estimates.
    groups : (n_texts,) array, optional
        Texts resampled and split together (SST-2's source sentences).

    Returns
    -------
    ResolutionVerdicts

    Raises
    ------
    ValueError
        Empty ``n_tokens`` or ``pairs``, a pair naming no row, or a control of other lengths.

    Examples
    --------
    >>> from posgeom.corpus import SequenceIncidence, synthetic_corpus
    >>> from posgeom.geometry import flat_corpus
    >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(1600, 6, 20, rng=0, regime="abrupt"), 6, 20)
    >>> line = np.abs(np.subtract.outer(np.arange(6.0), np.arange(6.0)))
    >>> rows = [Candidate("line", "", lambda D: line), Candidate("constant", "", lambda D: 1 - np.eye(6))]
    >>> v = stress_across_resolutions(rows, inc, n_tokens=(2, 8), pairs=[("line", "constant")], rng=0,
    ...                               control=flat_corpus(inc, rng=0), n_resamples=30)
    >>> v.n_tokens, sorted(v.intervals), v.intervals["net"].shape
    ((2, 8), ['control', 'corpus', 'net'], (2, 1, 3))
    """
    from ..geometry import Resolved, choose_resolution, resolution_sweep

    inc = check_incidence(data)
    ks = tuple(sorted(int(k) for k in n_tokens))
    names, pairs = [c.name for c in candidates], tuple((str(a), str(b)) for a, b in pairs)
    if not ks or not pairs:
        raise ValueError("n_tokens and pairs must be non-empty, e.g. n_tokens=(5, 29), pairs=[('ALiBi', 'sinusoidal')]")
    missing = sorted({x for p in pairs for x in p} - set(names))
    if missing:
        raise ValueError(f"pairs name rows {missing} that are not among the candidates {names}")
    corpora = {"corpus": inc}
    if control is not None:
        corpora["control"] = check_incidence(control, "control")
        if not np.array_equal(corpora["control"].lengths, inc.lengths):
            raise ValueError("control must have the texts' lengths, text by text (e.g. flat_corpus(data, rng=...))")
    seed = int(check_rng(rng).integers(2**63))  # one seed for corpus and control: the same resampled text indices
    m_star = choose_resolution(inc, fraction=fraction, texts_per_position=texts_per_position).texts_per_position
    index = [(names.index(a), names.index(b)) for a, b in pairs]

    def statistic(Q):
        return evaluate_rows(candidates, distances_from_squared(Q))[1::3]

    out = {k: np.empty((len(ks), len(pairs), 3)) for k in [*corpora, *(["net"] if control is not None else [])]}
    for g, K in enumerate(ks):
        est = Resolved(resolution=choose_resolution(inc, texts_per_position=m_star, n_tokens=K), n_splits=n_splits)
        boots = {k: est.bootstrap(c, rng=seed, n_resamples=n_resamples, statistic=statistic, confidence=confidence,
                                  groups=groups) for k, c in corpora.items()}
        for p, (a, b) in enumerate(index):
            for k, boot in boots.items():
                d = difference(boot, a, b)
                out[k][g, p] = d.estimate, d.lower, d.upper
            if control is not None:  # corpus (a - b) minus control (a - b), replicate by replicate
                both = [difference(boots[k], a, b) for k in corpora]
                reps = np.column_stack([x.replicates for x in both])
                pair = BootstrapEstimate(np.array([x.estimate for x in both]), reps, 0.0, 0.0, 0.0, 0.0, confidence,
                                         both[0].method, "net")
                d = difference(pair, 0, 1)
                out["net"][g, p] = d.estimate, d.lower, d.upper
    mass = resolution_sweep(inc, rng=seed, n_tokens=ks, texts_per_position=(m_star,), n_splits=2).mass_kept
    return ResolutionVerdicts(pairs, ks, mass, m_star, out)
