"""Verdicts across resolutions ``K``: :func:`across_resolutions` (contrasts of a statistic, net of a paired control)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from numbers import Integral, Real

import numpy as np
from numpy.typing import ArrayLike

from ..corpus.incidence import SequenceIncidence, check_incidence
from ..geometry._crossfit import distances_from_squared
from ..inference import Interval, decide
from ..inference._bootstrap import difference, paired
from .candidates import Candidate
from .table import evaluate_rows

__all__: list[str] = []  # Chapter 7 imports stress_across_resolutions from here (no new public name)


@dataclass(frozen=True)
class ResolutionVerdicts:
    """Paired contrasts ``a - b`` of a statistic at several resolutions (:func:`across_resolutions`).

    ``pairs``: the contrasts' names ``(a, b)``; ``n_tokens``: the ``K`` (increasing); ``mass_kept``: the kept tokens'
    share of the mass (mean over positions); ``texts_per_position``: ``m*``; ``intervals``: ``(estimate, lower, upper)``
    at level ``confidence``, shape ``(K, pair, 3)``, for ``"corpus"``, ``"control"``, ``"net"`` (corpus minus control).
    """

    pairs: tuple
    n_tokens: tuple
    mass_kept: np.ndarray
    texts_per_position: int
    intervals: dict
    confidence: float

    def verdict(self, a: str, b: str, *, which: str = "corpus") -> str:
        """``"a < b"``/``"a > b"`` if so at every ``K`` (``decide``), else where it changes; ``which`` interval."""
        if (a, b) not in self.pairs or which not in self.intervals:
            raise KeyError(f"no pair {(a, b)} in {list(self.pairs)} or no {which!r} in {list(self.intervals)}")
        rows = self.intervals[which][:, self.pairs.index((a, b))]
        out = [decide(Interval(*r, self.confidence)).outcome for r in rows]
        if len(set(out)) == 1:
            return {"lower": f"{a} < {b}", "higher": f"{a} > {b}"}.get(out[0], "undetermined")
        k = next(i for i, o in enumerate(out) if o != out[0])
        return f"depends on resolution ({out[0]} at K={self.n_tokens[0]}, {out[k]} from K={self.n_tokens[k]})"

    def net(self, a: str, b: str) -> ResolutionVerdicts:
        """The net intervals of a one-contrast result as the ``"corpus"`` of the contrast ``(a, b)`` (real, control)."""
        if len(self.pairs) != 1 or "net" not in self.intervals:
            raise ValueError(f"net needs one contrast and a control, got {list(self.pairs)}, {list(self.intervals)}")
        return replace(self, pairs=((a, b),), intervals={"corpus": self.intervals["net"]})


def across_resolutions(statistic: Callable[[np.ndarray], ArrayLike], data: SequenceIncidence, *,
                       n_tokens: Sequence[int], contrasts: Mapping[tuple, tuple], rng: int | np.random.Generator,
                       control: SequenceIncidence | None = None, texts_per_position: int | None = None,
                       fraction: float = 0.125, n_resamples: int = 100, confidence: float = 0.95, n_splits: int = 20,
                       groups: ArrayLike | None = None) -> ResolutionVerdicts:
    """Contrasts of ``statistic(Q)`` at each resolution ``K`` (``m*`` fixed) on a corpus and, paired, a control.

    At every ``K`` the resolved estimator (``n_splits`` splits) bootstraps the statistic of the squared distances
    over the texts (or ``groups``), and a ``control`` of the same lengths (``flat_corpus(data)``) with the same seed,
    so both draw the same texts: **an int** ``rng`` **is that seed as is; a Generator gives one int**. ``contrasts``
    maps names ``(a, b)`` to ``(i, j)``: component ``i`` of the flat statistic minus component ``j`` (an int) or the
    number ``j`` (a float: a threshold); the net: corpus minus control by replicate. ``m*`` as ``choose_resolution``.

    Examples
    --------
    >>> from posgeom.corpus import synthetic_corpus
    >>> inc = SequenceIncidence.from_sequences(synthetic_corpus(1600, 6, 20, rng=0), 6, 20)
    >>> across_resolutions(lambda Q: Q[0, 5], inc, n_tokens=(2, 8), contrasts={("d2", "0.01"): (0, 0.01)}, rng=0,
    ...                    n_resamples=30).verdict("d2", "0.01")
    'd2 > 0.01'
    """
    from ..geometry import Resolved, choose_resolution, resolution_sweep
    inc, ks, pairs = check_incidence(data), tuple(sorted(int(k) for k in n_tokens)), tuple(contrasts)
    if not ks or not pairs or any(isinstance(j, bool) or not isinstance(j, Real) for _, j in contrasts.values()):
        raise ValueError(f"n_tokens and contrasts must be non-empty, contrasts mapping (a, b) to (component i, "
                         f"component j or a float threshold); got {ks}, {dict(contrasts)}")
    corpora = {"corpus": inc} if control is None else {"corpus": inc, "control": check_incidence(control)}
    if not np.array_equal(corpora.get("control", inc).lengths, inc.lengths):
        raise ValueError("control must have the texts' lengths, text by text (e.g. flat_corpus(data, rng=...))")
    seed = int(rng.integers(2**63)) if isinstance(rng, np.random.Generator) else rng  # corpus and control's seed
    m_star = choose_resolution(inc, fraction=fraction, texts_per_position=texts_per_position).texts_per_position
    out = {k: np.empty((len(ks), len(pairs), 3)) for k in [*corpora, *(["net"] if control is not None else [])]}
    for g, K in enumerate(ks):
        est = Resolved(resolution=choose_resolution(inc, texts_per_position=m_star, n_tokens=K), n_splits=n_splits)
        boots = {k: est.bootstrap(c, rng=seed, n_resamples=n_resamples, confidence=confidence, groups=groups,
                                  statistic=statistic) for k, c in corpora.items()}
        for p, (i, j) in enumerate(contrasts.values()):
            comp = isinstance(j, Integral)
            diffs = {k: difference(b, i, j) if comp else difference(b, i, threshold=j) for k, b in boots.items()}
            if control is not None:  # by replicate; a threshold cancels: component i of corpus minus control
                diffs["net"] = difference(paired(*diffs.values()) if comp else paired(*boots.values(), index=i), 0, 1)
            for k, d in diffs.items():
                out[k][g, p] = d.estimate, d.lower, d.upper
    mass = resolution_sweep(inc, rng=seed, n_tokens=ks, texts_per_position=(m_star,), n_splits=2).mass_kept
    return ResolutionVerdicts(pairs, ks, mass, m_star, out, confidence)


def stress_across_resolutions(candidates: Sequence[Candidate], data: SequenceIncidence, *,
                              n_tokens: Sequence[int], pairs: Sequence[tuple], rng: int | np.random.Generator,
                              control: SequenceIncidence | None = None, texts_per_position: int | None = None,
                              fraction: float = 0.125, n_resamples: int = 100, confidence: float = 0.95,
                              n_splits: int = 20, groups: ArrayLike | None = None) -> ResolutionVerdicts:
    """:func:`across_resolutions` of ``stress*(a) - stress*(b)`` for ``pairs`` of row names (as ``stress_ladder``)."""
    names = [c.name for c in candidates]
    if not {x for p in pairs for x in p} <= set(names):
        raise ValueError(f"pairs must name rows among {names}, got {list(pairs)}")
    return across_resolutions(lambda Q: evaluate_rows(candidates, distances_from_squared(Q))[1::3], data,
                              n_tokens=n_tokens, contrasts={(a, b): (names.index(a), names.index(b)) for a, b in pairs},
                              rng=rng, control=control, texts_per_position=texts_per_position, fraction=fraction,
                              n_resamples=n_resamples, confidence=confidence, n_splits=n_splits, groups=groups)
