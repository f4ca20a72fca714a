"""Verdicts across resolutions: :func:`stress_across_resolutions`, a paired stress difference at every ``K``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_rng
from ..corpus.incidence import SequenceIncidence, check_incidence
from ..geometry._crossfit import distances_from_squared
from ..inference import Interval, decide
from ..inference._bootstrap import BootstrapEstimate, difference
from .candidates import Candidate
from .table import evaluate_rows

__all__: list[str] = []  # Chapter 7 imports stress_across_resolutions from here (no new public name)


@dataclass(frozen=True)
class ResolutionVerdicts:
    """Paired stress differences ``stress*(a) - stress*(b)`` at several resolutions (:func:`stress_across_resolutions`).

    ``pairs`` ``(a, b)``; ``n_tokens``, the resolutions ``K`` (increasing); ``mass_kept``, the share of the mass the
    ``K`` kept tokens hold (mean over positions); ``texts_per_position``, ``m*`` at every ``K``; ``intervals``,
    ``(estimate, lower, upper)`` centred percentile intervals, shape ``(K, pair, 3)``, for ``"corpus"`` and, with a
    control, ``"control"`` and ``"net"`` (corpus minus control on the same resampled texts).

    Examples
    --------
    >>> v = ResolutionVerdicts((("x", "y"),), (2, 8), np.array([0.4, 0.7]), 100,
    ...                        {"corpus": np.array([[[-0.2, -0.3, -0.1]], [[0.0, -0.1, 0.1]]])})
    >>> v.verdict("x", "y")
    'depends on resolution (lower at K=2, undetermined from K=8)'
    """

    pairs: tuple
    n_tokens: tuple
    mass_kept: np.ndarray
    texts_per_position: int
    intervals: dict

    def verdict(self, a: str, b: str, *, which: str = "corpus") -> str:
        """``"a < b"``/``"a > b"`` if so at every ``K`` (``posgeom.inference.decide``), else where it changes; ``which``
        is ``"corpus"``, ``"control"`` or ``"net"``.
        """
        if (a, b) not in self.pairs or which not in self.intervals:
            raise KeyError(f"no pair {(a, b)} in {list(self.pairs)} or no {which!r} in {list(self.intervals)}")
        rows = self.intervals[which][:, self.pairs.index((a, b))]
        out = [decide(Interval(*r, 0.95)).outcome for r in rows]
        if len(set(out)) == 1:
            return {"lower": f"{a} < {b}", "higher": f"{a} > {b}"}.get(out[0], "undetermined")
        k = next(i for i, o in enumerate(out) if o != out[0])
        return f"depends on resolution ({out[0]} at K={self.n_tokens[0]}, {out[k]} from K={self.n_tokens[k]})"


def stress_across_resolutions(candidates: Sequence[Candidate], data: SequenceIncidence, *,
                              n_tokens: Sequence[int], pairs: Sequence[tuple], rng: int | np.random.Generator,
                              control: SequenceIncidence | None = None, texts_per_position: int | None = None,
                              fraction: float = 0.125, n_resamples: int = 100, confidence: float = 0.95,
                              n_splits: int = 20, groups: ArrayLike | None = None) -> ResolutionVerdicts:
    """The paired stress difference of each pair of rows at each resolution ``K``, with intervals and mass kept.

    At every ``K`` (``m*`` fixed) the resolved estimator is bootstrapped on the texts (or ``groups``), all rows on
    the same resamples. A ``control`` with the same lengths, text by text (e.g. ``posgeom.geometry.flat_corpus`` of
    ``data``), is bootstrapped with the same seed, so ``corpus - control`` is paired by text.

    Parameters
    ----------
    candidates, data, rng, n_resamples, confidence, n_splits, groups
        As :func:`posgeom.stress.stress_ladder` (``n_splits``: of the point estimates). ``n_tokens``: the ``K``
        values; ``pairs``: row names ``(a, b)``; ``control``: texts of the same lengths; ``texts_per_position``:
        ``m*``, default the rule's for a subsample of ``fraction`` (1/8).

    Returns
    -------
    ResolutionVerdicts

    Examples
    --------
    >>> from posgeom.corpus import synthetic_corpus
    >>> from posgeom.geometry import flat_corpus
    >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(1600, 6, 20, rng=0), 6, 20)
    >>> rows = [Candidate("line", "", lambda D: np.abs(np.subtract.outer(np.arange(6.0), np.arange(6.0)))),
    ...         Candidate("constant", "", lambda D: 1 - np.eye(6))]
    >>> v = stress_across_resolutions(rows, inc, n_tokens=(2, 8), pairs=[("line", "constant")], rng=0,
    ...                               control=flat_corpus(inc, rng=0), n_resamples=30)
    >>> v.n_tokens, v.intervals["net"].shape
    ((2, 8), (2, 1, 3))
    """
    from ..geometry import Resolved, choose_resolution, resolution_sweep
    inc, names, pairs = check_incidence(data), [c.name for c in candidates], tuple((a, b) for a, b in pairs)
    ks = tuple(sorted(int(k) for k in n_tokens))
    if not ks or not pairs or not {x for p in pairs for x in p} <= set(names):
        raise ValueError(f"n_tokens and pairs must be non-empty, and pairs must name rows among {names}")
    corpora = {"corpus": inc} if control is None else {"corpus": inc, "control": check_incidence(control)}
    if not np.array_equal(corpora.get("control", inc).lengths, inc.lengths):
        raise ValueError("control must have the texts' lengths, text by text (e.g. flat_corpus(data, rng=...))")
    seed = int(check_rng(rng).integers(2**63))  # one seed for corpus and control: the same resampled texts
    m_star = choose_resolution(inc, fraction=fraction, texts_per_position=texts_per_position).texts_per_position
    out = {k: np.empty((len(ks), len(pairs), 3)) for k in [*corpora, *(["net"] if control is not None else [])]}
    for g, K in enumerate(ks):
        est = Resolved(resolution=choose_resolution(inc, texts_per_position=m_star, n_tokens=K), n_splits=n_splits)
        boots = {k: est.bootstrap(c, rng=seed, n_resamples=n_resamples, confidence=confidence, groups=groups,
                                  statistic=lambda Q: evaluate_rows(candidates, distances_from_squared(Q))[1::3])
                 for k, c in corpora.items()}
        for p, (a, b) in enumerate((names.index(a), names.index(b)) for a, b in pairs):
            diffs = {k: difference(boot, a, b) for k, boot in boots.items()}
            if control is not None:  # corpus (a - b) minus control (a - b), replicate by replicate
                both = BootstrapEstimate(np.array([diffs["corpus"].estimate, diffs["control"].estimate]),
                                         np.column_stack([diffs["corpus"].replicates, diffs["control"].replicates]),
                                         0.0, 0.0, 0.0, 0.0, confidence, "", "")
                diffs["net"] = difference(both, 0, 1)
            for k, d in diffs.items():
                out[k][g, p] = d.estimate, d.lower, d.upper
    mass = resolution_sweep(inc, rng=seed, n_tokens=ks, texts_per_position=(m_star,), n_splits=2).mass_kept
    return ResolutionVerdicts(pairs, ks, mass, m_star, out)
